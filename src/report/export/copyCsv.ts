// CSV records written from PostgreSQL's binary COPY of a grouping's rows: ids as uuids, other dimensions as text, the
// sums as doubles.
//
// A CSV export used to be rendered in its query (rendered.ts), a row's cells formatted and joined by PostgreSQL
// functions: for a million rows that doubled the query's time, and the query is the export's slower side. Sent in
// binary instead, a row is its text's bytes, sixteen-byte uuids and eight-byte doubles, and only the sums its metrics
// use: PostgreSQL formats nothing, and the server copies the text and writes the ids and numbers here, byte by byte,
// without a string or an object a row. The records are byte for byte what csvRecord (exportFormats.ts) writes from
// the same row's cells (test/copyCsv.test.ts).
import { DIMENSION_KEYS, UUID_KEYS } from '../dimensions.ts';
import { BASE_METRICS, SYSTEM_METRICS, writeMetrics, type BaseMetric, type MetricPlan, type Sums } from '../metrics.ts';
import type { Grouping } from '../params.ts';
import { quoted, renderable } from './rendered.ts';

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;
const APOSTROPHE = 0x27;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;

/** First bytes a spreadsheet would run as a formula (exportFormats.ts neutralises them): = + - @ tab CR. */
const FORMULA_START = new Uint8Array(256);
for (const c of [0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]) FORMULA_START[c] = 1;

/** What opens a binary COPY: the signature, then 32-bit flags and the length of a header extension. */
const SIGNATURE = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00];
const HEADER = SIGNATURE.length + 8;

/**
 * An export's sort and hash join are each given at least this much memory (PostgreSQL's default, 4 MB, suits many
 * small queries at once; an export is one large one). A million-row export's query then sorts in memory instead of
 * on disk: 4.5 s to 3.2-3.4 s on the machine of BENCHMARKS.md. A server set higher keeps its own setting.
 */
const EXPORT_WORK_MEM = '64MB';

/**
 * An export's transaction plans without Memoize. An export reads each creative's facts once a day of its range, and
 * PostgreSQL, expecting repeats, chose a cached index lookup of a creative per fact (Memoize) over hashing the
 * creatives: for report-data-creative-one-currency over a million creatives on one day the cache missed a million
 * times, and the first row took 4.3-5.0 s instead of 0.9-1.2 s with the parallel hash join it chooses without
 * Memoize. Index lookups stay open to small exports.
 */
const EXPORT_PLANNER = `select set_config('enable_memoize', 'off', true)`;

/** The statements that set an export's work_mem and planner settings for its own transaction. */
export const EXPORT_SETTINGS = `select set_config('work_mem', '${EXPORT_WORK_MEM}', true) where pg_size_bytes(current_setting('work_mem')) < pg_size_bytes('${EXPORT_WORK_MEM}'); ${EXPORT_PLANNER}`;

/**
 * The statements that send source's rows as CopyCsv reads them, in source's order: the export's settings for its own
 * transaction (a query of several statements is one), then the COPY. source: a grouping's query (its parameters
 * written in: COPY takes none), whose columns are the dimension keys and the sums; a sum no metric uses is left out,
 * and PostgreSQL then does not compute it. A uuid key is sent as a uuid (a source giving other text for it fails):
 * as text, the two ids of a million creatives were 0.7 s of PostgreSQL's 4.9. name: the source's, first in the text
 * for pg_stat_activity.
 */
export function copyCsvStatement(source: string, grouping: Grouping, metrics: MetricPlan[], name: string): string {
  const columns = [
    ...DIMENSION_KEYS[grouping].map((key) => `q.${quoted(key)}::${UUID_KEYS.has(key) ? 'uuid' : 'text'}`),
    ...sumsUsed(metrics).map((sum) => `q.${sum}::float8`),
  ];
  return `/* ${name}, as binary COPY */ ${EXPORT_SETTINGS}; copy (select ${columns.join(', ')} from (\n${source}\n) q) to stdout (format binary)`;
}

/** The sums metrics are computed from, in BASE_METRICS order: a custom metric's formula may use any system metric. */
export function sumsUsed(metrics: MetricPlan[]): BaseMetric[] {
  if (!renderable(metrics)) return [...BASE_METRICS];
  const used = new Set(metrics.flatMap(({ name }) => [SYSTEM_METRICS[name].of, SYSTEM_METRICS[name].per]));
  return BASE_METRICS.filter((sum) => used.has(sum));
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0')).map((hex) => [hex.charCodeAt(0), hex.charCodeAt(1)]);
const HIGH = Uint8Array.from(HEX, ([high]) => high);
const LOW = Uint8Array.from(HEX, ([, low]) => low);

/** A uuid's sixteen bytes as its text, lower-case hex in groups of 8-4-4-4-12. */
function writeUuid(data: Uint8Array, from: number, out: Uint8Array, at: number): number {
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = MINUS;
    const byte = data[from + i];
    out[at++] = HIGH[byte];
    out[at++] = LOW[byte];
  }
  return at;
}

/** The most bytes writeTidied writes: String() of a double is at most 25 characters ("-1.2345678901234567e-300"). */
const NUMBER_BYTES = 25;

/**
 * n's decimal digits (n a whole number from 0 to 2^53) at out[at..]; returns where they end. Below 2^31 in 32-bit
 * integer arithmetic: a double's % is a call into C, and a million rows' numbers spent most of their time in it.
 */
function writeDigits(n: number, out: Uint8Array, at: number): number {
  if (n >= 2 ** 31) {
    let end = at;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) end++;
    for (let i = end, rest = n; i >= at; i--, rest = Math.floor(rest / 10)) out[i] = ZERO + (rest % 10);
    return end + 1;
  }
  let rest = n | 0;
  let end = at;
  for (let left = rest; left >= 10; left = (left / 10) | 0) end++;
  for (let i = end; i >= at; i--) {
    const tens = (rest / 10) | 0;
    out[i] = ZERO + rest - tens * 10;
    rest = tens;
  }
  return end + 1;
}

function writeAscii(text: string, out: Uint8Array, at: number): number {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}

/**
 * Writes String(tidy(value)) (metrics.ts), nothing for null or a value tidy drops; returns where it ends. Without the
 * string for the numbers a CSV holds: a whole number below 9e9 is itself when tidied (times a million it is still
 * exact), and any other value tidies to k / 1e6 for k = Math.round(value × 1e6), which for |k| < 1e15 has at most
 * fifteen significant digits: no shorter decimal reads back as the same double, so JavaScript writes exactly k's
 * digits with the point six places from the right (trailing zeros dropped). Other values take the string.
 */
export function writeTidied(value: number | null, out: Uint8Array, at: number): number {
  if (value === null || !Number.isFinite(value)) return at;
  if (Number.isInteger(value) && Math.abs(value) < 9e9) {
    if (value < 0) out[at++] = MINUS;
    return writeDigits(Math.abs(value), out, at);
  }
  const k = Math.round(value * 1e6);
  if (Math.abs(k) >= 1e15) return writeAscii(String(k / 1e6), out, at);
  if (k < 0) out[at++] = MINUS;
  const magnitude = Math.abs(k);
  // The quotient below 1e9 is a double's floor exactly (its ulp is under the 1e-6 a fraction could round up by).
  const whole = Math.floor(magnitude / 1e6);
  let fraction = (magnitude - whole * 1e6) | 0;
  at = writeDigits(whole, out, at);
  if (fraction === 0) return at;
  out[at++] = DOT;
  let places = 6;
  for (let tens = (fraction / 10) | 0; fraction === tens * 10; tens = (fraction / 10) | 0) {
    fraction = tens;
    places--;
  }
  for (let i = at + places - 1; i >= at; i--) {
    const tens = (fraction / 10) | 0;
    out[i] = ZERO + fraction - tens * 10;
    fraction = tens;
  }
  return at + places;
}

/**
 * Turns binary COPY output into CSV records: text cells neutralised and quoted where RFC 4180 needs it, numbers as
 * JavaScript writes them, null as an empty cell. The COPY's columns: copyCsvStatement's, the grouping's dimension keys
 * (uuids or text), then a double for each of sumsUsed(metrics).
 */
export class CopyCsv {
  private carry: Uint8Array | null = null;
  private header = true;
  private finished = false;
  private readonly uuid: boolean[];
  private readonly fields: number;
  /** Where each of the COPY's sums goes in `sums` (its index in BASE_METRICS). */
  private readonly sent: Int32Array;
  // System metrics are computed from `sums` directly: metric i is sums[of[i]], or null where sums[per[i]] is 0 and
  // else sums[of[i]] / sums[per[i]] × scale[i] (metrics.ts). A custom metric, or a null sum, takes writeMetrics.
  private readonly system: boolean;
  private readonly of: Int32Array;
  private readonly per: Int32Array;
  private readonly scale: Float64Array;
  private readonly sums = new Float64Array(BASE_METRICS.length);
  private readonly cells: unknown[];
  private out = new Uint8Array(0);
  private at = 0;

  constructor(
    keys: readonly string[],
    private readonly metrics: MetricPlan[],
  ) {
    this.uuid = keys.map((key) => UUID_KEYS.has(key));
    this.sent = Int32Array.from(sumsUsed(metrics), (sum) => BASE_METRICS.indexOf(sum));
    this.fields = keys.length + this.sent.length;
    this.system = renderable(metrics);
    const index = (name: string | undefined) => (name === undefined ? -1 : BASE_METRICS.indexOf(name as never));
    this.of = Int32Array.from(metrics, (metric) => index(SYSTEM_METRICS[metric.name]?.of));
    this.per = Int32Array.from(metrics, (metric) => index(SYSTEM_METRICS[metric.name]?.per));
    this.scale = Float64Array.from(metrics, (metric) => SYSTEM_METRICS[metric.name]?.scale ?? 1);
    this.cells = new Array(metrics.length);
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
      this.reserve(3 * (end - p) + NUMBER_BYTES * this.metrics.length);
      this.row(data, view, p + 2);
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
      end += 4 + (length > 0 ? length : 0);
    }
    return end;
  }

  private row(data: Uint8Array, view: DataView, p: number) {
    const out = this.out;
    let at = this.at;
    const dimensions = this.uuid.length;
    for (let i = 0; i < dimensions; i++) {
      if (i > 0) out[at++] = COMMA;
      const length = view.getInt32(p);
      p += 4;
      if (length < 0) continue;
      if (!this.uuid[i]) at = text(data, p, p + length, out, at);
      else if (length === 16) at = writeUuid(data, p, out, at);
      else throw new Error(`a COPY uuid of ${length} bytes`);
      p += length;
    }
    const sums = this.sums;
    let whole = this.system;
    for (let i = 0; i < this.sent.length; i++) {
      const length = view.getInt32(p);
      p += 4;
      if (length < 0) {
        whole = false;
        sums[this.sent[i]] = NaN;
      } else {
        if (length !== 8) throw new Error(`a COPY sum of ${length} bytes, not a double`);
        sums[this.sent[i]] = view.getFloat64(p);
        p += length;
      }
    }
    if (whole) {
      for (let i = 0; i < this.of.length; i++) {
        if (dimensions > 0 || i > 0) out[at++] = COMMA;
        const per = this.per[i];
        const a = sums[this.of[i]];
        at = writeTidied(per < 0 ? a : sums[per] === 0 ? null : (a / sums[per]) * this.scale[i], out, at);
      }
    } else {
      at = this.generic(out, at, dimensions);
    }
    out[at++] = CR;
    out[at++] = LF;
    this.at = at;
  }

  /** The metrics as the cells path writes them, for a custom metric or a null sum. */
  private generic(out: Uint8Array, at: number, dimensions: number): number {
    const sums = {} as Sums;
    BASE_METRICS.forEach((name, i) => (sums[name] = (Number.isNaN(this.sums[i]) ? null : this.sums[i]) as number));
    writeMetrics(sums, this.metrics, this.cells, 0);
    for (let i = 0; i < this.cells.length; i++) {
      if (dimensions > 0 || i > 0) out[at++] = COMMA;
      const value = this.cells[i];
      if (value !== null && value !== undefined) at = writeAscii(String(value), out, at);
    }
    return at;
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
