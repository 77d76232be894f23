// RFC 4180 CSV records read from an operator's file (quoted fields may hold commas, quotes and newlines), from a
// string or a stream of chunks, so a file of any size is read in constant memory. Ours rather than a library's:
// BENCHMARKS.md ("What makes it fast") gives the measurements against csv-parse and Papa Parse.

export type CsvRecord = { line: number; fields: string[] };

export class CsvError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

/** A record longer than this is refused, so a runaway quote cannot hold the rest of a file in memory. */
const MAX_RECORD = 1 << 20;

/**
 * The records of text from `at`, with their first lines; a record that reaches the end of text unterminated is left
 * for the next chunk unless final. Returns where the records read end, and the line there.
 */
function records(text: string, at: number, line: number, final: boolean): { records: CsvRecord[]; next: number; line: number } {
  const out: CsvRecord[] = [];
  let i = at;
  let atLine = line;
  const unfinished = () => !final && i >= text.length;
  outer: while (i < text.length) {
    const start = i;
    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= text.length) {
            if (!final) break outer;
            throw new CsvError(startLine, 'a quoted field is not closed');
          }
          const c = text[i++];
          if (c === '"') {
            if (i >= text.length && !final) break outer;
            if (text[i] === '"') {
              field += '"';
              i++;
            } else break;
          } else {
            if (c === '\n') line++;
            field += c;
          }
        }
        if (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          throw new CsvError(startLine, 'a quoted field has text after its closing quote');
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') throw new CsvError(startLine, 'a quote inside an unquoted field');
          field += text[i++];
        }
      }
      fields.push(field);
      if (unfinished() || (text[i] === '\r' && i + 1 >= text.length && !final)) break outer;
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '\r') i++;
      if (text[i] === '\n') i++;
      line++;
      break;
    }
    if (i - start > MAX_RECORD) throw new CsvError(startLine, `a record is longer than ${MAX_RECORD} characters`);
    if (!(fields.length === 1 && fields[0] === '')) out.push({ line: startLine, fields });
    at = i;
    atLine = line;
  }
  if (!final && text.length - at > MAX_RECORD) throw new CsvError(atLine, `a record is longer than ${MAX_RECORD} characters`);
  return { records: out, next: at, line: atLine };
}

const withoutBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** Yields each record of text with the line it starts on; a stray quote is a CsvError naming its line. */
export function* readCsv(text: string): Generator<CsvRecord> {
  yield* records(withoutBom(text), 0, 1, true).records;
}

/** The same, from UTF-8 chunks as they arrive (a file, standard input, gunzip's output). */
export async function* readCsvStream(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CsvRecord> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  let line = 1;
  let first = true;
  for await (const chunk of chunks) {
    let text = rest + decoder.decode(chunk, { stream: true });
    if (first && text.length > 0) {
      text = withoutBom(text);
      first = false;
    }
    const read = records(text, 0, line, false);
    rest = text.slice(read.next);
    line = read.line;
    yield* read.records;
  }
  yield* records(rest + decoder.decode(), 0, line, true).records;
}
