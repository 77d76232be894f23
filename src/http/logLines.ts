// Log lines on stdout, one JSON object a line, written in batches: one write a turn of the event loop rather than
// one a request, which under load was the largest single cost of a cheap request (a system call each).
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { setImmediate } from 'node:timers';

/**
 * The turn's lines, encoded as they come: no growing string to flatten and encode again at the write. Two buffers
 * take turns: one is written while the next fills, and comes back once its write is done.
 */
const LINE_BYTES = 64 * 1024;
let pending = Buffer.allocUnsafe(LINE_BYTES);
let spare: typeof pending | undefined;
let used = 0;
let scheduled = false;

/** Writes what is queued now; called on its own each turn, and before the process exits. */
export function flushLines(): void {
  scheduled = false;
  if (used === 0) return;
  const written = pending;
  pending = spare ?? Buffer.allocUnsafe(LINE_BYTES);
  spare = undefined;
  const bytes = written.subarray(0, used);
  used = 0;
  // One grown past its size for a burst of long lines is let go.
  process.stdout.write(bytes, () => {
    if (written.length === LINE_BYTES) spare = written;
  });
}

export function writeLine(line: string): void {
  // UTF-8 takes at most three bytes a UTF-16 unit; the newline one more.
  const most = line.length * 3 + 1;
  if (used + most > pending.length) {
    const grown = Buffer.allocUnsafe(Math.max(pending.length * 2, used + most));
    pending.copy(grown, 0, 0, used);
    pending = grown;
  }
  used += pending.write(line, used, 'utf8');
  pending[used++] = 10;
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushLines);
  }
}

let isoAt = Number.NaN;
let iso = '';

/** new Date(ms).toISOString(), kept for the millisecond: requests that start together share the one string. */
export function isoTime(ms: number): string {
  if (ms !== isoAt) {
    iso = new Date(ms).toISOString();
    isoAt = ms;
  }
  return iso;
}
