// Log lines on stdout, one JSON object a line, written in batches: one write a turn of the event loop rather than
// one a request, which under load was the largest single cost of a cheap request (a system call each).
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { setImmediate } from 'node:timers';

const LINE_BYTES = 64 * 1024;

/** ASCII text encoded once, for a piece of a line that repeats: copied into the buffer as it is. */
export const piece = (ascii: string): Uint8Array => Buffer.from(ascii, 'latin1');

/** A string's JSON, encoded once and kept while the same string comes again (a busy client's path, say). */
export class RepeatedJson {
  private value = '';
  private encoded = piece('""');
  of(value: string): Uint8Array {
    if (value !== this.value) {
      this.encoded = Buffer.from(JSON.stringify(value));
      this.value = value;
    }
    return this.encoded;
  }
}

/**
 * Lines encoded into a buffer as they come, a piece at a time: no string is made for a line, flattened and encoded
 * again at the write. Pieces that repeat are copied in as bytes encoded once; a string from outside is written as
 * JSON.stringify writes it.
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

  /** Bytes encoded once (piece, RepeatedJson). */
  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** Text the caller knows is ASCII and needs no escaping in JSON. */
  ascii(text: string): void {
    this.reserve(text.length);
    this.used += this.bytes.write(text, this.used, 'latin1');
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    // UTF-8 takes at most three bytes a UTF-16 unit.
    this.reserve(text.length * 3);
    this.used += this.bytes.write(text, this.used, 'utf8');
  }

  /** A string as its JSON, as JSON.stringify writes it. */
  json(value: string): void {
    this.text(JSON.stringify(value));
  }

  /** A number as its JSON (which has no NaN or Infinity); a small whole one digit by digit, with no string made. */
  number(value: number): void {
    if (!(Number.isInteger(value) && value >= 0 && value < 1e9)) {
      this.ascii(Number.isFinite(value) ? String(value) : 'null');
      return;
    }
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    this.reserve(digits);
    let at = this.used + digits;
    this.used = at;
    let rest = value;
    do {
      this.bytes[--at] = 48 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
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
let isoBytes = piece('');

/** new Date(ms).toISOString(), kept for the millisecond: requests that start together share the one string. */
export function isoTime(ms: number): string {
  if (ms !== isoAt) {
    iso = new Date(ms).toISOString();
    isoBytes = piece(iso);
    isoAt = ms;
  }
  return iso;
}

/** isoTime's bytes. */
export function isoTimeBytes(ms: number): Uint8Array {
  isoTime(ms);
  return isoBytes;
}
