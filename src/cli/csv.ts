// RFC 4180 CSV records read from an operator's file (quoted fields may hold commas, quotes and newlines), from a
// string or a stream of chunks, so a file of any size is read in constant memory. The parsing is csv-parse's (strict
// about quotes, a cap on a record's size); this file numbers records by their first lines and words the errors as the
// rest of the command line does.
import { parse, CsvError as ParseError, type InfoRecord, type Options } from 'csv-parse';
import { parse as parseText } from 'csv-parse/sync';
import { pipeline, Readable } from 'node:stream';

export type CsvRecord = { line: number; fields: string[] };

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

const newlines = (fields: string[]) => {
  let n = 0;
  for (const field of fields) for (let i = field.indexOf('\n'); i >= 0; i = field.indexOf('\n', i + 1)) n++;
  return n;
};

/**
 * csv-parse's options, with a hook that numbers each record by the line it starts on: its own count of lines takes a
 * CRLF inside a quoted field for two, so lines are counted here from the records, their newlines and the blank lines
 * skipped. An error names the line its record starts on.
 */
function options(): { options: Options; errorLine: (error: ParseError) => number } {
  let records = 0;
  let inside = 0; // newlines inside the quoted fields read so far
  const start = (context: { empty_lines?: number }) => 1 + records + (context.empty_lines ?? 0) + inside;
  return {
    options: {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true, // the importers name a record with too few or too many fields themselves
      max_record_size: MAX_RECORD,
      // csv-parse's types let on_record reshape a record only with `columns`; it passes any value on.
      on_record: ((fields: string[], context: InfoRecord): CsvRecord => {
        const record = { line: start(context), fields };
        records++;
        inside += newlines(fields);
        return record;
      }) as unknown as Options['on_record'],
    },
    errorLine: (error) => start(error as { empty_lines?: number }),
  };
}

const WORDS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field has text after its closing quote',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field',
  CSV_MAX_RECORD_SIZE: `a record is longer than ${MAX_RECORD} bytes`,
  CSV_INVALID_ARGUMENT: 'the file is not UTF-8 text',
};

function ours(error: unknown, line: (error: ParseError) => number): unknown {
  if (!(error instanceof ParseError)) return error;
  return new CsvError(line(error), WORDS[error.code] ?? error.message.replace(/ at line \d+.*$/, ''));
}

/** Yields each record of text with the line it starts on; a stray quote is a CsvError naming its line. */
export function* readCsv(text: string): Generator<CsvRecord> {
  const { options: parsing, errorLine } = options();
  let records: CsvRecord[];
  try {
    records = parseText(text, parsing) as unknown as CsvRecord[];
  } catch (error) {
    throw ours(error, errorLine);
  }
  yield* records;
}

/** The same, from UTF-8 chunks as they arrive (a file, standard input, gunzip's output), with backpressure. */
export async function* readCsvStream(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CsvRecord> {
  const { options: parsing, errorLine } = options();
  // pipeline ends the source when the parser fails or the reader stops early, and hands the source's own error on.
  const records = pipeline(Readable.from(chunks, { objectMode: false }), parse(parsing), () => {});
  try {
    for await (const record of records) yield record as CsvRecord;
  } catch (error) {
    throw ours(error, errorLine);
  }
}
