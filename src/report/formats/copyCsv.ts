// CSV records written from PostgreSQL's binary COPY of a grouping's rows (copyRows.ts).
//
// Rendering a CSV line in the query (as rendered.ts does for XLSX rows) doubles a large export's query time, and the
// query is the export's slower side. The records are byte for byte what csvRecord (csv.ts) writes from the same
// row's cells (test/copyCsv.test.ts).
import { NUMBER_BYTES, writeTidied, writeUuid } from './asciiBytes.ts';
import { CopyRows } from './copyRows.ts';

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

/**
 * CSV records from binary COPY output: text cells neutralised and quoted where RFC 4180 needs it, numbers as
 * JavaScript writes them, null as an empty cell.
 */
export class CopyCsv extends CopyRows {
  // A text byte is written at most twice (a quote doubled), a uuid's in 36 bytes, a number in at most NUMBER_BYTES;
  // the field lengths (four bytes each) leave room for commas, quotes, an apostrophe and the line end.
  protected room(bytes: number): number {
    return 3 * bytes + NUMBER_BYTES * this.values.length + TOTAL.length;
  }

  protected write(data: Uint8Array) {
    const out = this.out;
    let at = this.at;
    const dimensions = this.uuid.length;
    for (let i = 0; i < dimensions; i++) {
      if (i > 0) out[at++] = COMMA;
      if (this.total && i === 0) for (const c of TOTAL) out[at++] = c;
      const length = this.lengths[i];
      if (length < 0) continue;
      const start = this.starts[i];
      at = this.uuid[i] ? writeUuid(data, start, out, at) : text(data, start, start + length, out, at);
    }
    const values = this.values;
    for (let i = 0; i < values.length; i++) {
      if (dimensions > 0 || i > 0) out[at++] = COMMA;
      at = writeTidied(Number.isNaN(values[i]) ? null : values[i], out, at);
    }
    out[at++] = CR;
    out[at++] = LF;
    this.at = at;
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
