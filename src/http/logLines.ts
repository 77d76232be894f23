// Log lines on stdout, one JSON object a line, written in batches: one write a turn of the event loop rather than
// one a request, which under load was the largest single cost of a cheap request (a system call each).
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { setImmediate } from 'node:timers';

const LINE_BYTES = 64 * 1024;

/**
 * Lines encoded into a buffer as they come, a piece at a time: no string is made for a line, flattened and encoded
 * again at the write. Text of our own (names, digits, hex) is ASCII and copied as it is; a string from outside is
 * written as JSON.stringify writes it.
 */
export class LineBuffer {
  bytes: Buffer = Buffer.allocUnsafe(LINE_BYTES);
  used = 0;

  /** Room for n more bytes: a buffer grows for a burst of long lines. */
  private reserve(n: number): void {
    if (this.used + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + n));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }

  /** Text the caller knows is ASCII and needs no escaping in JSON. */
  ascii(text: string): void {
    this.reserve(text.length);
    const { bytes } = this;
    let at = this.used;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.used = at;
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    // UTF-8 takes at most three bytes a UTF-16 unit.
    this.reserve(text.length * 3);
    this.used += this.bytes.write(text, this.used, 'utf8');
  }

  /** A string as its JSON: printable ASCII without a quote or backslash is copied; anything else JSON.stringify'd. */
  json(value: string): void {
    this.reserve(value.length + 2);
    const { bytes } = this;
    const start = this.used;
    let at = start;
    bytes[at++] = 34;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 34 || c === 92) {
        this.used = start;
        this.text(JSON.stringify(value));
        return;
      }
      bytes[at++] = c;
    }
    bytes[at++] = 34;
    this.used = at;
  }

  /** A number as its JSON (which has no NaN or Infinity). */
  number(value: number): void {
    this.ascii(Number.isFinite(value) ? String(value) : 'null');
  }

  /** Ends a line. */
  end(): void {
    this.reserve(1);
    this.bytes[this.used++] = 10;
  }

  toString(): string {
    return this.bytes.toString('utf8', 0, this.used);
  }
}

/** Two buffers take turns: one is written while the next fills, and comes back once its write is done. */
let pending = new LineBuffer();
let spare: LineBuffer | undefined;
let scheduled = false;

/** Writes what is queued now; called on its own each turn, and before the process exits. */
export function flushLines(): void {
  scheduled = false;
  if (pending.used === 0) return;
  const written = pending;
  pending = spare ?? new LineBuffer();
  spare = undefined;
  // One grown past its size for a burst of long lines is let go.
  process.stdout.write(written.bytes.subarray(0, written.used), () => {
    written.used = 0;
    if (written.bytes.length === LINE_BYTES) spare = written;
  });
}

/**
 * The turn's buffer, for writing one line into: the caller writes it whole (ending with end()) before it returns, so
 * no write of the buffer falls within a line.
 */
export function lineBuffer(): LineBuffer {
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushLines);
  }
  return pending;
}

export function writeLine(line: string): void {
  const out = lineBuffer();
  out.text(line);
  out.end();
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
