// CSV records written from PostgreSQL's binary COPY of a grouping's rows: ids as uuids, other dimensions as text, the
// sums as doubles.
//
// Rendering a CSV line in the query (as rendered.ts does for XLSX rows) doubles a large export's query time, and the
// query is the export's slower side. Sent in binary, a row is its text's bytes, sixteen-byte uuids and eight-byte
// doubles, and only the sums its metrics use: PostgreSQL formats nothing, and the server copies the text and writes
// the ids and numbers here, byte by byte, without a string or an object a row. The records are byte for byte what
// csvRecord (csv.ts) writes from
// the same row's cells (test/copyCsv.test.ts).
import { UUID_KEYS } from '../dimensions.ts';
import { BASE_METRICS, SYSTEM_METRICS, type MetricPlan, type RowShape } from '../metrics.ts';
import { NUMBER_BYTES, writeTidied, writeUuid } from './asciiBytes.ts';
import { sumsUsed } from './copyStatement.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const APOSTROPHE = 0x27;
/** The summary row's first cell (docs/decisions.md §6). */
const TOTAL = new TextEncoder().encode('Total');

/** First bytes a spreadsheet would run as a formula (csv.ts neutralises them): = + - @ tab CR. */
const FORMULA_START = new Uint8Array(256);
for (const c of [0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]) FORMULA_START[c] = 1;

/** What opens a binary COPY: the signature, then 32-bit flags and the length of a header extension. */
const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];
const HEADER = SIGNATURE.length + 8;

/**
 * Turns binary COPY output into CSV records: text cells neutralised and quoted where RFC 4180 needs it, numbers as
 * JavaScript writes them, null as an empty cell. The COPY's columns: copyCsvStatement's, the summary's mark, the
 * grouping's dimension keys (uuids or text), a double for each of sumsUsed(metrics), the custom metrics' values, the
 * comparison range's metric values.
 */
export class CopyCsv {
  /** Rows written so far. */
  rows = 0;
  private carry: Uint8Array | null = null;
  private header = true;
  private finished = false;
  private readonly uuid: boolean[];
  private readonly fields: number;
  /** Where each of the COPY's sums goes in `sums` (its index in BASE_METRICS). */
  private readonly sent: Int32Array;
  // A system metric is computed from `sums` directly: metric i is sums[of[i]], or null where sums[per[i]] is 0 and
  // else sums[of[i]] / sums[per[i]] × scale[i] (metrics.ts); a null sum (NaN here) makes it null. A custom metric's
  // value comes computed, a column of its own after the sums (copyCsvStatement): custom[i] is its place, else -1.
  private readonly of: Int32Array;
  private readonly per: Int32Array;
  private readonly scale: Float64Array;
  private readonly custom: Int32Array;
  private readonly sums = new Float64Array(BASE_METRICS.length);
  private readonly values: Float64Array;
  private out = new Uint8Array(0);
  private at = 0;

  /** The summary's row is marked by a first boolean column (copyCsvStatement). */
  private readonly marked: boolean;
  /** Each metric over the comparison range comes computed after the custom ones; 0 without one. */
  private readonly compared: number;
  private readonly metrics: MetricPlan[];

  constructor(shape: RowShape) {
    const { keys, metrics } = shape;
    this.metrics = metrics;
    this.marked = shape.summary;
    this.compared = shape.compared ? metrics.length : 0;
    this.uuid = keys.map((key) => UUID_KEYS.has(key));
    this.sent = Int32Array.from(sumsUsed(metrics), (sum) => BASE_METRICS.indexOf(sum));
    const customs = metrics.filter((metric) => metric.formula);
    this.fields = (this.marked ? 1 : 0) + keys.length + this.sent.length + customs.length + this.compared;
    this.custom = Int32Array.from(metrics, (metric) => customs.indexOf(metric));
    this.values = new Float64Array(customs.length + this.compared);
    const index = (name: string | undefined) => (name === undefined ? -1 : BASE_METRICS.indexOf(name as never));
    this.of = Int32Array.from(metrics, (metric) => index(SYSTEM_METRICS[metric.name]?.of));
    this.per = Int32Array.from(metrics, (metric) => index(SYSTEM_METRICS[metric.name]?.per));
    this.scale = Float64Array.from(metrics, (metric) => SYSTEM_METRICS[metric.name]?.scale ?? 1);
  }

  /** Whether the COPY's trailer has been read: every row is in. */
  get done(): boolean {
    return this.finished;
  }

  /** The CSV records of the rows that chunk completes (a row split between chunks waits for its end). */
  push(chunk: Uint8Array): Uint8Array {
    let data = chunk;
    if (this.carry) {
      data = new Uint8Array(this.carry.length + chunk.length);
      data.set(this.carry);
      data.set(chunk, this.carry.length);
      this.carry = null;
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    let p = 0;
    if (this.header) {
      if (data.length < HEADER) return this.keep(data);
      for (let i = 0; i < SIGNATURE.length; i++) if (data[i] !== SIGNATURE[i]) throw new Error('not a binary COPY');
      const extension = view.getInt32(HEADER - 4);
      if (data.length < HEADER + extension) return this.keep(data);
      p = HEADER + extension;
      this.header = false;
    }
    // About a row's own size; a row grows it if need be.
    this.reserve(data.length - p + 1024);
    while (p + 2 <= data.length && !this.finished) {
      const count = view.getInt16(p);
      if (count === -1) {
        this.finished = true;
        p += 2;
        break;
      }
      if (count !== this.fields) throw new Error(`a COPY row of ${count} fields, not ${this.fields}`);
      const end = this.rowEnd(view, p);
      if (end > data.length) break;
      // A text byte is written at most twice (a quote doubled), a uuid's in 36 bytes, a number in at most NUMBER_BYTES;
      // the field lengths (four bytes each) leave room for commas, quotes, an apostrophe and the line end.
      this.reserve(3 * (end - p) + NUMBER_BYTES * (this.metrics.length + this.compared) + TOTAL.length);
      this.row(data, view, p + 2);
      this.rows++;
      p = end;
    }
    if (p < data.length && !this.finished) this.carry = data.slice(p);
    const written = this.out.subarray(0, this.at);
    this.out = new Uint8Array(0);
    this.at = 0;
    return written;
  }

  /** Where the row at p ends, or past the data's end if it is not all there yet. */
  private rowEnd(view: DataView, p: number): number {
    let end = p + 2;
    for (let i = 0; i < this.fields; i++) {
      if (end + 4 > view.byteLength) return view.byteLength + 1;
      const length = view.getInt32(end);
      end += 4 + Math.max(length, 0);
    }
    return end;
  }

  private row(data: Uint8Array, view: DataView, p: number) {
    const out = this.out;
    let at = this.at;
    const dimensions = this.uuid.length;
    let total = false;
    if (this.marked) {
      total = view.getInt32(p) === 1 && data[p + 4] === 1;
      p += 4 + Math.max(0, view.getInt32(p));
    }
    for (let i = 0; i < dimensions; i++) {
      if (i > 0) out[at++] = COMMA;
      const length = view.getInt32(p);
      p += 4;
      if (total && i === 0) for (const c of TOTAL) out[at++] = c;
      if (length < 0) continue;
      if (!this.uuid[i]) at = text(data, p, p + length, out, at);
      else if (length === 16) at = writeUuid(data, p, out, at);
      else throw new Error(`a COPY uuid of ${length} bytes`);
      p += length;
    }
    const sums = this.sums;
    for (let i = 0; i < this.sent.length; i++) {
      sums[this.sent[i]] = double(view, p);
      p += 4 + Math.max(0, view.getInt32(p));
    }
    const values = this.values;
    for (let i = 0; i < values.length; i++) {
      values[i] = double(view, p);
      p += 4 + Math.max(0, view.getInt32(p));
    }
    for (let i = 0; i < this.of.length; i++) {
      if (dimensions > 0 || i > 0) out[at++] = COMMA;
      const custom = this.custom[i];
      let value: number;
      if (custom >= 0) value = values[custom];
      else {
        const per = this.per[i];
        const a = sums[this.of[i]];
        value = per < 0 ? a : sums[per] === 0 ? NaN : (a / sums[per]) * this.scale[i];
      }
      at = writeTidied(Number.isNaN(value) ? null : value, out, at);
    }
    for (let i = values.length - this.compared; i < values.length; i++) {
      out[at++] = COMMA;
      at = writeTidied(Number.isNaN(values[i]) ? null : values[i], out, at);
    }
    out[at++] = CR;
    out[at++] = LF;
    this.at = at;
  }

  private keep(data: Uint8Array): Uint8Array {
    this.carry = data.slice();
    return new Uint8Array(0);
  }

  private reserve(bytes: number) {
    if (this.out.length - this.at >= bytes) return;
    const next = new Uint8Array(Math.max(this.at + bytes, 2 * this.out.length));
    next.set(this.out.subarray(0, this.at));
    this.out = next;
  }
}

/** The double at p (its length, then its eight bytes), or NaN for null. */
function double(view: DataView, p: number): number {
  const length = view.getInt32(p);
  if (length < 0) return NaN;
  if (length !== 8) throw new Error(`a COPY double of ${length} bytes`);
  return view.getFloat64(p + 4);
}

function copy(data: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  for (let i = from; i < to; i++) out[at++] = data[i];
  return at;
}

/** A text cell: neutralised, then quoted with its quotes doubled if it holds a quote, comma, CR or LF. */
function text(data: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  let quote = false;
  for (let i = from; i < to; i++) {
    const c = data[i];
    if (c === QUOTE || c === COMMA || c === CR || c === LF) {
      quote = true;
      break;
    }
  }
  if (!quote) {
    if (from < to && FORMULA_START[data[from]]) out[at++] = APOSTROPHE;
    return copy(data, from, to, out, at);
  }
  out[at++] = QUOTE;
  if (FORMULA_START[data[from]]) out[at++] = APOSTROPHE;
  for (let i = from; i < to; i++) {
    const c = data[i];
    out[at++] = c;
    if (c === QUOTE) out[at++] = QUOTE;
  }
  out[at++] = QUOTE;
  return at;
}
