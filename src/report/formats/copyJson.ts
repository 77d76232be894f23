// The data endpoint's JSON rows written from PostgreSQL's binary COPY of a grouping's rows (copyRows.ts), as the CSV
// export's records are: byte for byte what JSON.stringify writes of the rows built from the same cells
// (test/copyJson.test.ts).
import { NUMBER_BYTES, writeTidied, writeUuid } from './asciiBytes.ts';
import { CopyRows } from './copyRows.ts';
import type { RowShape } from '../metrics.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

/** JSON.stringify's two-character escapes of control characters; the others are written \u00XX. */
const SHORT_ESCAPE = new Uint8Array(0x20);
for (const [c, letter] of [
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0c, 'f'],
  [0x0d, 'r'],
] as const)
  SHORT_ESCAPE[c] = letter.charCodeAt(0);
const HEX_DIGITS = bytes('0123456789abcdef');
const NULL = bytes('null');
const UNICODE_ESCAPE = bytes('\\u00');

/**
 * The data endpoint's rows (DataRow) from binary COPY output, joined by commas; the summary's row, when there is one,
 * closes the rows and follows them as the answer's summary (`],"summary":{…}`, docs/decisions.md §6).
 */
export class CopyJson extends CopyRows {
  /** `"key":` of each dimension, the first after `{"dimensions":{`, the others after a comma. */
  private readonly keyNames: Uint8Array[];
  /** `"name":` of each metric, the first after `{`, the others after a comma. */
  private readonly metricNames: Uint8Array[];
  private readonly fixed: number;
  private first = true;
  /** Whether rows have the comparison range's metrics (as many as their own, perhaps none). */
  private readonly comparing: boolean;

  constructor(shape: RowShape) {
    super(shape);
    this.comparing = shape.compared;
    this.keyNames = shape.keys.map((key, i) => bytes(`${i > 0 ? ',' : ''}${JSON.stringify(key)}:`));
    this.metricNames = shape.metrics.map((metric, i) => bytes(`${i > 0 ? ',' : ''}${JSON.stringify(metric.name)}:`));
    const names = (parts: Uint8Array[]) => parts.reduce((sum, part) => sum + part.length, 0);
    this.fixed =
      names(this.keyNames) +
      2 * names(this.metricNames) +
      NUMBER_BYTES * this.values.length +
      38 * this.uuid.length +
      ROW_OPEN.length +
      METRICS.length +
      COMPARE.length +
      SUMMARY.length +
      8;
  }

  // A text byte is written in at most six (\u00XX); the rest is names, numbers, uuids and punctuation.
  protected room(bytes: number): number {
    return 6 * bytes + this.fixed;
  }

  protected write(data: Uint8Array) {
    let at = this.at;
    const out = this.out;
    if (this.total) at = put(SUMMARY, out, at);
    else {
      if (!this.first) out[at++] = COMMA;
      this.first = false;
      at = put(ROW_OPEN, out, at);
      for (let i = 0; i < this.uuid.length; i++) {
        at = put(this.keyNames[i], out, at);
        const length = this.lengths[i];
        const start = this.starts[i];
        if (length < 0) at = put(NULL, out, at);
        else if (this.uuid[i]) {
          out[at++] = QUOTE;
          at = writeUuid(data, start, out, at);
          out[at++] = QUOTE;
        } else at = jsonString(data, start, start + length, out, at);
      }
      out[at++] = 0x7d; // }
      out[at++] = COMMA;
    }
    at = this.numbers(0, out, at);
    if (this.comparing) {
      at = put(COMPARE, out, at);
      at = this.numbers(this.metricNames.length, out, at);
      out[at++] = 0x7d; // }
    }
    out[at++] = 0x7d; // }
    this.at = at;
  }

  /** `"metrics":{…}` of the values from `from`, each tidied, null for null. */
  private numbers(from: number, out: Uint8Array, at: number): number {
    at = put(METRICS, out, at);
    for (let i = 0; i < this.metricNames.length; i++) {
      at = put(this.metricNames[i], out, at);
      const value = this.values[from + i];
      const end = writeTidied(Number.isNaN(value) ? null : value, out, at);
      at = end === at ? put(NULL, out, at) : end;
    }
    out[at++] = 0x7d; // }
    return at;
  }
}

const ROW_OPEN = bytes('{"dimensions":{');
const METRICS = bytes('"metrics":{');
const COMPARE = bytes(',"compare":{');
const SUMMARY = bytes('],"summary":{');

function put(part: Uint8Array, out: Uint8Array, at: number): number {
  out.set(part, at);
  return at + part.length;
}

/** UTF-8 text as a JSON string, as JSON.stringify writes it: quote, backslash and control characters escaped. */
function jsonString(data: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  out[at++] = QUOTE;
  for (let i = from; i < to; i++) {
    const c = data[i];
    if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) out[at++] = c;
    else if (c === QUOTE || c === BACKSLASH) {
      out[at++] = BACKSLASH;
      out[at++] = c;
    } else if (SHORT_ESCAPE[c]) {
      out[at++] = BACKSLASH;
      out[at++] = SHORT_ESCAPE[c];
    } else {
      at = put(UNICODE_ESCAPE, out, at);
      out[at++] = HEX_DIGITS[c >> 4];
      out[at++] = HEX_DIGITS[c & 15];
    }
  }
  out[at++] = QUOTE;
  return at;
}
