// Log lines on stdout, one JSON object a line, written in batches: a write every few milliseconds, not one a request.
// A write is a system call: one a request was once the largest single cost of a cheap request, and one each turn of
// the event loop (a turn answers only a few requests) still cost a health check a quarter of its CPU.
import process from 'node:process';

/** Lines wait at most this long, and are written sooner once this many characters wait. */
const FLUSH_AFTER_MS = 10;
const FLUSH_AT_CHARS = 64 * 1024;

let pending = '';
let timer: ReturnType<typeof setTimeout> | undefined;

/** Writes what is queued now; called on its own, and before the process exits. */
export function flushLines(): void {
  clearTimeout(timer);
  timer = undefined;
  if (!pending) return;
  const text = pending;
  pending = '';
  process.stdout.write(text);
}

export function writeLine(line: string): void {
  pending += `${line}\n`;
  if (pending.length >= FLUSH_AT_CHARS) flushLines();
  else timer ??= setTimeout(flushLines, FLUSH_AFTER_MS);
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
