// Log lines on stdout, one JSON object a line, written in batches: one write a turn of the event loop rather than
// one a request, which under load was the largest single cost of a cheap request (a system call each).
import process from 'node:process';
import { setImmediate } from 'node:timers';

let pending = '';
let scheduled = false;

/** Writes what is queued now; called on its own each turn, and before the process exits. */
export function flushLines(): void {
  scheduled = false;
  if (!pending) return;
  const text = pending;
  pending = '';
  process.stdout.write(text);
}

export function writeLine(line: string): void {
  pending += `${line}\n`;
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
