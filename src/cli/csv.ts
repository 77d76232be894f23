// RFC 4180 CSV records read from an operator's file (quoted fields may hold commas, quotes and newlines), from a
// string or a stream of chunks, so a file of any size is read in constant memory. Each record is numbered by the line
// it starts on, and a fault names that line in the words the rest of the command line uses.
// Written here rather than taken from csv-parse: an import spent most of its JavaScript time there, while a line
// without a quote (nearly every line of a platform's export) is one String.split (BENCHMARKS.md, "What makes it fast").

export type CsvRecord = { line: number; fields: string[] };
/** A record without a quote, as its line's text: its fields are `text.split(',')`, for a reader to split or not. */
export type CsvLine = { line: number; text: string };

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** A record longer than this is refused, so a runaway quote cannot hold the rest of a file in memory. */
const MAX_RECORD = 1 << 20;

const QUOTE = 34; // "
const COMMA = 44; // ,
const LF = 10; // \n
const CR = 13; // \r

/**
 * Records from text given a piece at a time. What a piece ends with, short of a whole record, is kept for the next:
 * a record is read from its first line once all of it is here, so a quoted field across pieces is read once.
 */
class RecordReader {
  constructor(private readonly keepText = false) {}
  private rest = '';
  /** The line the next record starts on; blank lines count. */
  line = 1;
  private started = false;

  /** The line that text, following what has been read, ends on. */
  lineOf(text: string): number {
    return this.line + (this.rest + text).split('\n').length - 1;
  }

  read(piece: string, last: boolean): (CsvRecord | CsvLine)[] {
    let text = this.rest + piece;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const records: (CsvRecord | CsvLine)[] = [];
    let at = 0;
    // The next quote in the text, looked for again only once passed: a file with none is searched once.
    let quote = text.indexOf('"');
    while (at < text.length) {
      const end = text.indexOf('\n', at);
      if (end < 0 && !last) break;
      const lineEnd = end < 0 ? text.length : end;
      const stop = lineEnd > at && text.charCodeAt(lineEnd - 1) === CR ? lineEnd - 1 : lineEnd;
      if (quote >= 0 && quote < at) quote = text.indexOf('"', at);
      if (quote < 0 || quote >= stop) {
        // No quote on the line: its fields are what the commas part. An empty line is no record.
        if (stop > at)
          records.push(
            this.keepText
              ? { line: this.line, text: text.slice(at, stop) }
              : { line: this.line, fields: text.slice(at, stop).split(',') },
          );
        this.line++;
        at = lineEnd + 1;
        continue;
      }
      const quoted = this.quoted(text, at, last);
      if (!quoted) break;
      records.push({ line: this.line, fields: quoted.fields });
      this.line += quoted.lines;
      at = quoted.next;
    }
    this.rest = at < text.length ? text.slice(at) : '';
    if (this.rest.length > MAX_RECORD) throw new CsvError(this.line, `a record is longer than ${MAX_RECORD} bytes`);
    return records;
  }

  /**
   * The record starting at `at`, which has a quote: read character by character. Undefined when its end is not in the
   * text yet; at the file's end, an open quote is a fault.
   */
  private quoted(text: string, at: number, last: boolean) {
    const fields: string[] = [];
    let lines = 1;
    let i = at;
    for (;;) {
      // At the start of a field.
      if (text.charCodeAt(i) === QUOTE) {
        let value = '';
        let from = i + 1;
        for (;;) {
          const close = text.indexOf('"', from);
          if (close < 0) {
            if (last) throw new CsvError(this.line, 'a quoted field is not closed');
            return undefined;
          }
          value += text.slice(from, close);
          if (text.charCodeAt(close + 1) === QUOTE) {
            value += '"';
            from = close + 2;
            continue;
          }
          if (close + 1 === text.length && !last) return undefined;
          i = close + 1;
          break;
        }
        for (let n = value.indexOf('\n'); n >= 0; n = value.indexOf('\n', n + 1)) lines++;
        fields.push(value);
        const after = text.charCodeAt(i);
        if (after === CR && text.charCodeAt(i + 1) !== LF && i + 1 === text.length && !last) return undefined;
        if (after === COMMA) {
          i++;
          continue;
        }
        if (Number.isNaN(after)) return { fields, lines, next: i };
        if (after === LF) return { fields, lines, next: i + 1 };
        if (after === CR && text.charCodeAt(i + 1) === LF) return { fields, lines, next: i + 2 };
        throw new CsvError(this.line, 'a quoted field has text after its closing quote');
      }
      // An unquoted field: up to the next comma or the line's end, with no quote in it.
      let end = i;
      while (end < text.length) {
        const c = text.charCodeAt(end);
        if (c === COMMA || c === LF) break;
        if (c === QUOTE) throw new CsvError(this.line, 'a quote inside an unquoted field');
        end++;
      }
      if (end === text.length && !last) return undefined;
      const c = text.charCodeAt(end);
      const stop = c === LF && end > i && text.charCodeAt(end - 1) === CR ? end - 1 : end;
      fields.push(text.slice(i, stop));
      if (c === COMMA) {
        i = end + 1;
        continue;
      }
      return { fields, lines, next: c === LF ? end + 1 : end };
    }
  }
}

/** Yields each record of text with the line it starts on; a stray quote is a CsvError naming its line. */
export function* readCsv(text: string): Generator<CsvRecord> {
  yield* new RecordReader().read(text, true) as CsvRecord[];
}

/** The same, from UTF-8 chunks as they arrive (a file, standard input, gunzip's output), read as they are asked for. */
export async function* readCsvStream(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<CsvRecord> {
  for await (const records of readCsvPieces(chunks)) yield* records;
}

/** The records of each chunk together, for a reader whose work a record is less than a step of the loop. */
export function readCsvPieces(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
  // Without keepText every record is split into fields.
  return pieces(chunks, false) as AsyncGenerator<CsvRecord[]>;
}

/** The same, each record without a quote left as its line's text (`readout import` splits only what it must). */
export function readCsvLines(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
  return pieces(chunks, true);
}

async function* pieces(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  keepText: boolean,
): AsyncGenerator<(CsvRecord | CsvLine)[]> {
  const reader = new RecordReader(keepText);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new CsvError(
        reader.lineOf(new TextDecoder().decode(chunk).split('\uFFFD')[0]),
        'the file is not UTF-8 text',
      );
    }
  };
  // Leaving the loop early (a fault, a reader that stops) ends the source: its `return` closes the file.
  for await (const chunk of chunks) {
    const records = reader.read(decode(chunk), false);
    if (records.length) yield records;
  }
  const records = reader.read(decode(), true);
  if (records.length) yield records;
}
