// An answer's rows read from PostgreSQL's binary COPY of them (copyStatement.ts), for a writer of one format (CSV:
// copyCsv.ts, JSON: copyJson.ts) to write without a string or an object a row.
//
// Sent in binary, a row is its text's bytes, sixteen-byte uuids and eight-byte doubles, and only the sums its metrics
// use: PostgreSQL formats nothing, and the server copies the text and writes the ids and numbers byte by byte.
import { UUID_KEYS } from '../dimensions.ts';
import { BASE_METRICS, SYSTEM_METRICS, type RowShape } from '../metrics.ts';
import { sumsUsed } from './copyStatement.ts';

/** What opens a binary COPY: the signature, then 32-bit flags and the length of a header extension. */
const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];
const HEADER = SIGNATURE.length + 8;

/**
 * Reads binary COPY output a chunk at a time, however its bytes are split, and hands each row to `write` decoded:
 * whether it is the summary's, where each dimension's bytes are, each metric's value (NaN for null). The COPY's
 * columns: copyStatement's, the summary's mark, the grouping's dimension keys (uuids or text), a double for each of
 * sumsUsed(metrics), the custom metrics' values, the comparison range's metric values.
 */
export abstract class CopyRows {
  /** Rows written so far. */
  rows = 0;
  private carry: Uint8Array | null = null;
  private header = true;
  private finished = false;
  private readonly fields: number;
  /** Where each of the COPY's sums goes in `sums` (its index in BASE_METRICS). */
  private readonly sent: Int32Array;
  // A system metric is computed from `sums` directly: metric i is sums[of[i]], or null where sums[per[i]] is 0 and
  // else sums[of[i]] / sums[per[i]] × scale[i] (metrics.ts); a null sum (NaN here) makes it null. A custom metric's
  // value comes computed, a column of its own after the sums (copyStatement): custom[i] is its place, else -1.
  private readonly of: Int32Array;
  private readonly per: Int32Array;
  private readonly scale: Float64Array;
  private readonly custom: Int32Array;
  private readonly sums = new Float64Array(BASE_METRICS.length);
  private readonly customs: Float64Array;
  /** The summary's row is marked by a first boolean column (copyStatement). */
  private readonly marked: boolean;

  protected readonly uuid: boolean[];
  /** Each metric over the comparison range comes computed after the custom ones; 0 without one. */
  private readonly compared: number;
  /** The row being written: whether it is the summary's, its dimensions' bytes (start, and length or -1 for null) */
  protected total = false;
  protected readonly starts: Int32Array;
  protected readonly lengths: Int32Array;
  /** and its metrics' values, then over the comparison range; NaN for null. */
  protected readonly values: Float64Array;
  protected out = new Uint8Array(0);
  protected at = 0;
  /** The room the last rows taken had: the next ones most likely need as much. */
  private wanted = 1 << 16;

  constructor(shape: RowShape) {
    const { keys, metrics } = shape;
    this.marked = shape.summary;
    this.compared = shape.compared ? metrics.length : 0;
    this.uuid = keys.map((key) => UUID_KEYS.has(key));
    this.starts = new Int32Array(keys.length);
    this.lengths = new Int32Array(keys.length);
    this.sent = Int32Array.from(sumsUsed(metrics), (sum) => BASE_METRICS.indexOf(sum));
    const customs = metrics.filter((metric) => metric.formula);
    this.fields = (this.marked ? 1 : 0) + keys.length + this.sent.length + customs.length + this.compared;
    this.custom = Int32Array.from(metrics, (metric) => customs.indexOf(metric));
    this.customs = new Float64Array(customs.length);
    this.values = new Float64Array(metrics.length + this.compared);
    const index = (name: string | undefined) => (name === undefined ? -1 : BASE_METRICS.indexOf(name as never));
    this.of = Int32Array.from(metrics, (metric) => index(SYSTEM_METRICS[metric.name]?.of));
    this.per = Int32Array.from(metrics, (metric) => index(SYSTEM_METRICS[metric.name]?.per));
    this.scale = Float64Array.from(metrics, (metric) => SYSTEM_METRICS[metric.name]?.scale ?? 1);
  }

  /** Whether the COPY's trailer has been read: every row is in. */
  get done(): boolean {
    return this.finished;
  }

  /** The most bytes `write` writes for a row whose fields take `bytes` in the COPY. */
  protected abstract room(bytes: number): number;

  /** Writes the decoded row (total, starts, lengths, values) from data at this.out[this.at..], moving this.at. */
  protected abstract write(data: Uint8Array): void;

  /** Writes the rows that chunk completes (a row split between chunks waits for its end); take() hands them on. */
  push(chunk: Uint8Array): void {
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
      if (data.length < HEADER) {
        this.carry = data.slice();
        return;
      }
      for (let i = 0; i < SIGNATURE.length; i++) if (data[i] !== SIGNATURE[i]) throw new Error('not a binary COPY');
      const extension = view.getInt32(HEADER - 4);
      if (data.length < HEADER + extension) {
        this.carry = data.slice();
        return;
      }
      p = HEADER + extension;
      this.header = false;
    }
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
      this.reserve(this.room(end - p));
      this.decode(data, view, p + 2);
      this.write(data);
      this.rows++;
      p = end;
    }
    if (p < data.length && !this.finished) this.carry = data.slice(p);
  }

  /** The text written since the last take(). */
  take(): Uint8Array {
    const written = this.out.subarray(0, this.at);
    this.wanted = Math.max(this.wanted, this.out.length);
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

  private decode(data: Uint8Array, view: DataView, p: number) {
    this.total = false;
    if (this.marked) {
      this.total = view.getInt32(p) === 1 && data[p + 4] === 1;
      p += 4 + Math.max(0, view.getInt32(p));
    }
    for (let i = 0; i < this.uuid.length; i++) {
      const length = view.getInt32(p);
      p += 4;
      if (this.uuid[i] && length >= 0 && length !== 16) throw new Error(`a COPY uuid of ${length} bytes`);
      this.starts[i] = p;
      this.lengths[i] = length;
      p += Math.max(length, 0);
    }
    const sums = this.sums;
    for (let i = 0; i < this.sent.length; i++) {
      sums[this.sent[i]] = double(view, p);
      p += 4 + Math.max(0, view.getInt32(p));
    }
    const customs = this.customs;
    for (let i = 0; i < customs.length; i++) {
      customs[i] = double(view, p);
      p += 4 + Math.max(0, view.getInt32(p));
    }
    const values = this.values;
    for (let i = 0; i < this.of.length; i++) {
      const custom = this.custom[i];
      if (custom >= 0) values[i] = customs[custom];
      else {
        const per = this.per[i];
        const a = sums[this.of[i]];
        values[i] = per < 0 ? a : sums[per] === 0 ? NaN : (a / sums[per]) * this.scale[i];
      }
    }
    for (let i = 0; i < this.compared; i++) {
      values[this.of.length + i] = double(view, p);
      p += 4 + Math.max(0, view.getInt32(p));
    }
  }

  private reserve(bytes: number) {
    if (this.out.length - this.at >= bytes) return;
    const next = new Uint8Array(Math.max(this.at + bytes, 2 * this.out.length, this.wanted));
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
