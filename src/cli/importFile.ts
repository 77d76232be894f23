// `readout import`: a platform's CSV checked line by line, staged, and written in one transaction (docs/commands.md,
// "Importing platform data"; docs/decisions.md §10).
import type { Sql } from '../store/database.ts';
import { factsTransaction } from '../store/factWrites.ts';
import { CsvError, readCsvLines, type CsvLine, type CsvRecord } from './csv.ts';
import { query, queryAs, type Queryable } from '../store/queries.ts';
import { BASE_METRIC_DECLARATIONS, CAMPAIGN_STATUSES, CREATIVE_FORMATS, PLATFORMS } from '../dataModel.ts';
import { BASE_METRICS } from '../report/metrics.ts';
import { readFlags, streamFileFlag, UsageError, uuidFlag, type Parsed } from './args.ts';
import { didYouMean } from '../http/nearest.ts';
import { requireOrganization } from './org.ts';
import { result } from './output.ts';
import { rateWarnings } from './fx.ts';

/**
 * The import file's columns (docs/commands.md, "Importing platform data"), in any order; campaign_status may be added.
 */
export const IMPORT_COLUMNS = [
  'date',
  'platform',
  'account_id',
  'account_name',
  'currency',
  'campaign_id',
  'campaign_name',
  'creative_id',
  'creative_name',
  'format',
  ...BASE_METRICS,
] as const;
const OPTIONAL_COLUMNS = ['campaign_status'] as const;
/** Where the numbers start in IMPORT_COLUMNS, and how many there are. */
const FIRST_NUMBER = 10;
const NUMBER_COUNT = IMPORT_COLUMNS.length - FIRST_NUMBER;

const FORMATS: readonly string[] = CREATIVE_FORMATS;
const CAMPAIGN_STATES: readonly string[] = CAMPAIGN_STATUSES;
/** Which of the numbers, the base metrics in their order, are counts (whole numbers). */
const WHOLE = BASE_METRIC_DECLARATIONS.map((metric) => metric.kind === 'count');
const WHOLE_NUMBER = '\\d{1,15}';
const NUMBER = '\\d{1,15}(\\.\\d{1,6})?';
/** Each number's pattern, and all of them as a line ends with them in IMPORT_COLUMNS' order. */
const NUMBER_PATTERNS = WHOLE.map((whole) => new RegExp(`^${whole ? WHOLE_NUMBER : NUMBER}$`));
const WHOLE_PATTERN = new RegExp(`^${WHOLE_NUMBER}$`);
const NUMBER_PATTERN = new RegExp(`^${NUMBER}$`);
const KIND = WHOLE.map((whole) => (whole ? 'whole number' : 'number'));
const NUMBERS_IN_ORDER = new RegExp(`^${WHOLE.map((whole) => (whole ? WHOLE_NUMBER : NUMBER)).join(',')}$`);
/** The names' places in IMPORT_COLUMNS, each 1 to 200 characters. */
const NAMED = [2, 5, 7, 3, 6, 8];
const BATCH = 5000;

/**
 * A staged fact: its line, its creative's number (Creative.number), its day, then its numbers as the file has them,
 * comma-separated (import_rows is copied as CSV: digits, dates and points need no quotes), then its declared base
 * metrics' numbers by slot as a quoted array, or '' (null) where the organization declares none.
 */
type Fact = [number, number, string, string, string];

/** A declared base metric as import reads it (docs/decisions.md §5): the column of its name, its slot. */
export type DeclaredColumn = { name: string; slot: number; whole: boolean };

/**
 * A string of its own: a field split from a line may be a slice of the whole piece of file it was read from, and a
 * creative kept for the rest of the import would keep that piece too.
 */
const own = (text: string) => `${text} `.slice(0, -1);

/** A creative the file names, as its last line has it: what create-import-creatives-staging's table holds. */
class Creative {
  /** Its last line's text but for the date and numbers, where the columns allow (Header.named): see stageKnown. */
  identity: string | undefined;
  /** Its days rose line by line so far; once they do not, a day of it may be given twice. */
  lastDay = '';
  repeats = false;
  lines = 0;
  accountName = '';
  campaignName = '';
  creativeName = '';
  format = '';
  status: string | null = null;
  /** The next creative held with the same creative_id (under another platform, account or campaign). */
  sameId: Creative | undefined;
  constructor(
    readonly number: number,
    readonly platform: string,
    readonly account: string,
    readonly campaign: string,
    readonly creative: string,
    readonly currency: string,
    readonly accountFirstLine: number,
    public line: number,
  ) {}

  /** Whether a line names this creative (platform, account, campaign and creative ids). */
  isNamedBy(fields: string[], at: number[]): boolean {
    return this.campaign === fields[at[5]] && this.account === fields[at[2]] && this.platform === fields[at[1]];
  }

  /** Whether a line of it says what an earlier one did, every field of it checked then: nothing to check again. */
  saysAgain(fields: string[], at: number[], status: string | null): boolean {
    return (
      this.currency === fields[at[4]] &&
      this.format === fields[at[9]] &&
      this.creativeName === fields[at[8]] &&
      this.campaignName === fields[at[6]] &&
      this.accountName === fields[at[3]] &&
      this.status === status
    );
  }

  /** What a later line of it says: its names, format and campaign status, each kept only when it changed. */
  name(line: number, fields: string[], at: number[], status: string | null) {
    this.line = line;
    if (fields[at[3]] !== this.accountName) this.accountName = own(fields[at[3]]);
    if (fields[at[6]] !== this.campaignName) this.campaignName = own(fields[at[6]]);
    if (fields[at[8]] !== this.creativeName) this.creativeName = own(fields[at[8]]);
    if (fields[at[9]] !== this.format) this.format = own(fields[at[9]]);
    if (status !== this.status) this.status = status === null ? null : own(status);
  }
}

/** A creative as create-import-creatives-staging's table holds it; `repeats` as 't' or 'f'. */
type StagedCreative = (string | number | null)[];

/**
 * Where each column is. named: with the date first and the numbers last in IMPORT_COLUMNS' order (a platform's
 * export), how many fields lie between them, every name, id and code of the line; else undefined.
 */
type Header = {
  at: number[];
  status: number;
  width: number;
  named: number | undefined;
  /** Each declared base metric's place in the file (-1: absent, read as 0), by slot - 1. */
  declared: number[];
};
const CREATIVE_ID = IMPORT_COLUMNS.indexOf('creative_id');

const fail = (line: number, why: string): never => {
  throw new UsageError(`--file: line ${line}: ${why}`);
};

function checkDate(value: string) {
  const d = new Date(`${value}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

const fieldsOf = (record: CsvRecord | CsvLine) => ('text' in record ? record.text.split(',') : record.fields);

/** The separator a spreadsheet may have saved the header with instead of commas, named as a person reads it. */
function otherSeparator(header: string): string | undefined {
  const named: [string, string][] = [
    [';', 'semicolons'],
    ['\t', 'tabs'],
    ['|', 'bars'],
  ];
  return named.find(([char]) => header.split(char).length > IMPORT_COLUMNS.length / 2)?.[1];
}

const meant = (name: string, known: readonly string[]) => {
  const near = didYouMean(name, known);
  return near ? ` (${near})` : '';
};

/**
 * Where each column is in the file's records, from its header: every column once; the base metrics', campaign_status
 * and the declared base metrics' optional.
 */
function readHeader({ line, fields }: CsvRecord, declared: DeclaredColumn[]): Header {
  const known: readonly string[] = [...IMPORT_COLUMNS, ...OPTIONAL_COLUMNS, ...declared.map((d) => d.name)];
  const separator = fields.length < IMPORT_COLUMNS.length ? otherSeparator(fields.join(',')) : undefined;
  if (separator)
    fail(line, `the header's names are separated by ${separator}: the file must be comma-separated (RFC 4180)`);
  const unknown = fields.filter((name) => !known.includes(name));
  // A base metric's column may be left out, its numbers 0 (docs/decisions.md §5): a file written before a metric was
  // added loads as it did.
  const missing = IMPORT_COLUMNS.slice(0, FIRST_NUMBER).filter((name) => !fields.includes(name));
  const twice = fields.filter((name, i) => fields.indexOf(name) !== i);
  if (unknown.length || missing.length || twice.length) {
    const why = [
      missing.length ? `lacks ${missing.join(', ')}` : '',
      unknown.length ? `has unknown ${unknown.map((n) => `"${n}"${meant(n, known)}`).join(', ')}` : '',
      twice.length ? `repeats ${twice.join(', ')}` : '',
    ].filter(Boolean);
    const optional = [...IMPORT_COLUMNS.slice(FIRST_NUMBER), 'campaign_status', ...declared.map((d) => d.name)];
    fail(
      line,
      `the header ${why.join('; ')}: it must name ${IMPORT_COLUMNS.slice(0, FIRST_NUMBER).join(',')}, ` +
        `and may add ${optional.join(', ')}`,
    );
  }
  const at = IMPORT_COLUMNS.map((name) => fields.indexOf(name));
  const numbersLast = at.slice(FIRST_NUMBER).every((place, i) => place === fields.length - NUMBER_COUNT + i);
  const places = Array.from({ length: Math.max(0, ...declared.map((d) => d.slot)) }, () => -1);
  for (const d of declared) places[d.slot - 1] = fields.indexOf(d.name);
  // A line's declared numbers are read field by field (stage), never matched as part of its creative's text.
  const named = at[0] === 0 && numbersLast && places.every((p) => p < 0) ? fields.length - 1 - NUMBER_COUNT : undefined;
  return { at, status: fields.indexOf('campaign_status'), width: fields.length, named, declared: places };
}

/** A line's declared numbers as the staged array: a column the file lacks, or an empty cell, is 0 (§5). */
function declaredNumbers(line: number, fields: string[], header: Header, declared: DeclaredColumn[]): string {
  if (header.declared.length === 0) return '';
  const values = header.declared.map((place) => (place < 0 || fields[place] === '' ? '0' : fields[place]));
  for (const d of declared) {
    const value = values[d.slot - 1];
    if (!(d.whole ? WHOLE_PATTERN : NUMBER_PATTERN).test(value))
      fail(line, `${d.name} "${value}" must be a non-negative ${d.whole ? 'whole number' : 'number'}`);
  }
  return `"{${values.join(',')}}"`;
}

/**
 * The file's lines checked as they come, the first fault stopping the import (its transaction rolls back, nothing is
 * written): facts() yields them a chunk at a time; the creatives they name are kept, one each, for creatives(), and
 * at most `held` at once, so what is held does not grow with the file.
 */
export class ImportFile {
  private header: Header | undefined;
  /** The creatives held, as first named; and by creative_id, those sharing one chained by `sameId`. */
  private readonly creativesHeld: Creative[] = [];
  private readonly creativesById = new Map<string, Creative>();
  private numbered = 0;
  /**
   * Creatives put out of memory once `held` were kept, to be staged before more facts are. A creative named again
   * after that has a second number, so from then on every creative counts as one that may give a day twice: its
   * lines are grouped by the creative they resolve to (import-facts).
   */
  private evicted: StagedCreative[] = [];
  private overflowed = false;
  /** Each account's currency and first line, by platform and id (a platform's name has no colon). */
  private readonly accounts = new Map<string, { currency: string; line: number }>();
  private checkedDate = '';

  /** A line's declared numbers when the file has none of their columns: every one 0 ('' when none is declared). */
  private zeros = '';

  constructor(
    private readonly pieces: AsyncIterable<(CsvRecord | CsvLine)[]>,
    private readonly held = 100_000,
    private readonly declared: DeclaredColumn[] = [],
  ) {}

  get withStatus() {
    return (this.header?.status ?? -1) >= 0;
  }

  async *facts(): AsyncGenerator<Fact[]> {
    try {
      for await (const records of this.pieces) {
        let from = 0;
        if (!this.header) {
          this.header = readHeader({ line: records[0].line, fields: fieldsOf(records[0]) }, this.declared);
          this.zeros = this.header.declared.length ? `"{${this.header.declared.map(() => 0).join(',')}}"` : '';
          from = 1;
        }
        const facts: Fact[] = new Array(records.length - from);
        for (let r = from; r < records.length; r++) {
          const record = records[r];
          facts[r - from] =
            ('text' in record && this.stageKnown(record, this.header)) ||
            this.stage(record.line, fieldsOf(record), this.header, !('text' in record));
        }
        if (facts.length) yield facts;
      }
    } catch (error) {
      if (error instanceof CsvError) fail(error.line, error.message);
      throw error;
    }
    if (!this.header) fail(1, 'the file is empty');
  }

  /** The creatives put out of memory since the last call, staged as they were. */
  takeEvicted(): StagedCreative[] {
    const out = this.evicted;
    this.evicted = [];
    return out;
  }

  /** The creatives still held, staged; read once facts() is done. */
  *creatives(): Generator<StagedCreative> {
    for (const creative of this.creativesHeld) yield this.staged(creative);
  }

  /** The lines of the creatives whose days rose line by line: each gives a day once (import-facts counts the rest). */
  risingLines(): number {
    let lines = 0;
    if (this.overflowed) return lines;
    for (const creative of this.creativesHeld) if (!creative.repeats) lines += creative.lines;
    return lines;
  }

  /**
   * A line whose every name, id and code is its creative's last line's, text for text, and whose date an earlier line
   * had: its numbers checked, the fact staged, without splitting the rest (a platform's export, nearly every line).
   * Undefined for any other line, or one whose numbers fail: stage() checks it field by field.
   */
  private stageKnown({ line, text }: CsvLine, header: Header): Fact | undefined {
    if (header.named === undefined) return undefined;
    // The commas after the date and after each named field, the creative id's start and end among them.
    const idAt = header.at[CREATIVE_ID];
    const dated = text.indexOf(',');
    let comma = dated;
    let idStart = 0;
    let idEnd = 0;
    for (let field = 1; field <= header.named; field++) {
      if (field === idAt) idStart = comma + 1;
      comma = text.indexOf(',', comma + 1);
      if (comma < 0) return undefined;
      if (field === idAt) idEnd = comma;
    }
    const date = this.checkedDate;
    // No date is checked before the first line: nothing can match it yet, and none must by an empty date.
    if (date === '' || dated !== date.length || !text.startsWith(date)) return undefined;
    const length = comma - dated - 1;
    let creative = this.creativesById.get(text.slice(idStart, idEnd));
    while (creative && !(creative.identity?.length === length && text.startsWith(creative.identity, dated + 1)))
      creative = creative.sameId;
    const numbers = text.slice(comma + 1);
    if (!creative || !NUMBERS_IN_ORDER.test(numbers)) return undefined;
    creative.line = line;
    this.noteDay(creative, date);
    return [line, creative.number, date, numbers, this.zeros];
  }

  private noteDay(creative: Creative, date: string) {
    if (date > creative.lastDay) creative.lastDay = date;
    else creative.repeats = true;
    creative.lines++;
  }

  /**
   * One line checked; its creative noted (the last line's names win); the fact staged. A line that says of its
   * creative what an earlier line did (nearly every line of a platform's export) has only its date and numbers left.
   * quoted: the line had a quote, so its text is not its fields joined by commas.
   */
  private stage(line: number, fields: string[], header: Header, quoted: boolean): Fact {
    if (fields.length !== header.width) fail(line, `has ${fields.length} fields, expected ${header.width}`);
    const { at } = header;
    const date = fields[at[0]];
    if (date !== this.checkedDate) {
      if (!checkDate(date)) fail(line, `date "${date}" is not a YYYY-MM-DD calendar date`);
      this.checkedDate = date;
    }
    const status = header.status < 0 ? null : fields[header.status];
    let creative = this.heldCreative(fields, at);
    if (creative?.saysAgain(fields, at, status)) creative.line = line;
    else {
      this.checkNames(line, fields, at, status);
      creative = this.creativeOf(line, fields, at, status, creative);
    }
    this.noteDay(creative, date);
    const numbers: string[] = new Array(NUMBER_COUNT);
    for (let n = 0; n < NUMBER_COUNT; n++) {
      // A column the file lacks, or an empty cell, is 0 (docs/decisions.md §5).
      const place = at[FIRST_NUMBER + n];
      const value = place < 0 || fields[place] === '' ? '0' : fields[place];
      if (!NUMBER_PATTERNS[n].test(value))
        fail(line, `${IMPORT_COLUMNS[FIRST_NUMBER + n]} "${value}" must be a non-negative ${KIND[n]}`);
      numbers[n] = value;
    }
    // What stageKnown matches the creative's next lines against: this line's, or nothing after a quoted one.
    creative.identity = quoted || header.named === undefined ? undefined : fields.slice(1, 1 + header.named).join(',');
    const declared = header.named === undefined ? declaredNumbers(line, fields, header, this.declared) : this.zeros;
    return [line, creative.number, date, numbers.join(','), declared];
  }

  /** The creative a line names, if it is held. */
  private heldCreative(fields: string[], at: number[]): Creative | undefined {
    let creative = this.creativesById.get(fields[at[7]]);
    while (creative && !creative.isNamedBy(fields, at)) creative = creative.sameId;
    return creative;
  }

  /** A line's platform, currency, format, names and campaign status checked. */
  private checkNames(line: number, fields: string[], at: number[], status: string | null) {
    const platform = fields[at[1]];
    const currency = fields[at[4]];
    const format = fields[at[9]];
    if (!(PLATFORMS as readonly string[]).includes(platform))
      fail(line, `platform "${platform}" is not one of ${PLATFORMS.join(', ')}`);
    if (!/^[A-Z]{3}$/.test(currency)) fail(line, `currency "${currency}" is not a three-letter code`);
    if (!FORMATS.includes(format)) fail(line, `format "${format}" is not one of ${FORMATS.join(', ')}`);
    for (const c of NAMED) {
      const value = fields[at[c]];
      if (value.length > 200 || !value.trim()) fail(line, `${IMPORT_COLUMNS[c]} must be 1 to 200 characters`);
      // PostgreSQL's text cannot hold one: refused at COPY, whose failure postgres.js never reports
      // (porsager/postgres#1173), it would leave the import waiting with the writers' lock held.
      if (value.includes('\u0000')) fail(line, `${IMPORT_COLUMNS[c]} holds a NUL character, which text cannot`);
    }
    if (status !== null && !CAMPAIGN_STATES.includes(status))
      fail(line, `campaign_status "${status}" is not one of ${CAMPAIGN_STATES.join(', ')}`);
  }

  /** The line's creative, held from an earlier line or new; its names and status become this line's. */
  private creativeOf(
    line: number,
    fields: string[],
    at: number[],
    status: string | null,
    known: Creative | undefined,
  ): Creative {
    const platform = fields[at[1]];
    const account = fields[at[2]];
    const campaign = fields[at[5]];
    const id = fields[at[7]];
    const currency = fields[at[4]];
    if (known) {
      if (currency !== known.currency)
        fail(line, `account ${account} is in ${known.currency} on an earlier line, not ${currency}`);
      known.name(line, fields, at, status);
      return known;
    }
    const accountKey = `${platform}:${account}`;
    let seen = this.accounts.get(accountKey);
    if (!seen) this.accounts.set(accountKey, (seen = { currency: own(currency), line }));
    else if (seen.currency !== currency)
      fail(line, `account ${account} is in ${seen.currency} on an earlier line, not ${currency}`);
    if (this.creativesHeld.length >= this.held) {
      this.overflowed = true;
      for (const creative of this.creativesHeld) this.evicted.push(this.staged(creative));
      this.creativesHeld.length = 0;
      this.creativesById.clear();
    }
    const created = new Creative(
      this.numbered++,
      own(platform),
      own(account),
      own(campaign),
      own(id),
      seen.currency,
      seen.line,
      line,
    );
    created.name(line, fields, at, status);
    created.sameId = this.creativesById.get(created.creative);
    this.creativesById.set(created.creative, created);
    this.creativesHeld.push(created);
    return created;
  }

  private staged(k: Creative): StagedCreative {
    return [
      k.number,
      k.line,
      k.platform,
      k.account,
      k.accountName,
      k.currency,
      k.accountFirstLine,
      k.campaign,
      k.campaignName,
      k.status,
      k.creative,
      k.creativeName,
      k.format,
      k.repeats || this.overflowed ? 't' : 'f',
    ];
  }
}

/** Where staged rows go: COPY on PostgreSQL, batches of inserts on the embedded socket (which does not speak COPY). */
type Sink = {
  add(rows: (string | number | null)[][]): Promise<void>;
  end(): Promise<void>;
  abort(error: unknown): void;
};

// COPY text format (PostgreSQL, COPY "Text Format"): backslash, tab and line breaks escaped; most fields have none.
const SPECIAL = /[\\\t\n\r]/;
const escapeText = (v: string | number | null) =>
  v === null
    ? '\\N'
    : typeof v !== 'string' || !SPECIAL.test(v)
      ? v
      : v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');

/**
 * COPY into a staging table, a line a row. A fact's fields are digits, points and a date, checked as read: they go
 * as they are, as CSV; a creative's names are escaped in COPY's text format.
 */
async function copySink(tx: Sql, table: 'import_rows' | 'import_creatives'): Promise<Sink> {
  const stream = await (table === 'import_rows'
    ? tx`copy import_rows from stdin (format csv)`
    : tx`copy import_creatives from stdin`
  ).writable();
  const encode =
    table === 'import_rows'
      ? (row: unknown[]) => row.join(',')
      : (row: (string | number | null)[]) => row.map(escapeText).join('\t');
  let failed: unknown;
  stream.on('error', (error) => (failed ??= error));
  // Lines are written a batch at a time: a write per row costs more than the row's own work.
  let pending = '';
  let lines = 0;
  const flush = async () => {
    const text = pending;
    pending = '';
    lines = 0;
    if (!stream.write(text)) await new Promise((resolve) => stream.once('drain', resolve));
  };
  return {
    async add(rows) {
      if (failed) throw failed;
      for (const row of rows) pending += `${encode(row)}\n`;
      lines += rows.length;
      if (lines >= BATCH) await flush();
    },
    end: async () => {
      if (lines) await flush();
      await new Promise<void>((resolve, reject) =>
        failed ? reject(failed) : stream.end(() => (failed ? reject(failed) : resolve())),
      );
    },
    // CopyFail: the server ends the COPY, and the transaction rolls back.
    abort: (error) => stream.destroy(error instanceof Error ? error : new Error(String(error))),
  };
}

/** The parameters of each staging query, a column each, in the order a staged row holds them. */
const STAGED = {
  'stage-import-rows': ['lines', 'creatives', 'days', 'declared', ...BASE_METRICS],
  'stage-import-creatives': [
    'creative',
    'line',
    'platform',
    'accountExternalId',
    'accountName',
    'currency',
    'accountFirstLine',
    'campaignExternalId',
    'campaignName',
    'campaignStatus',
    'creativeExternalId',
    'creativeName',
    'format',
    'repeats',
  ],
} as const;

function batchSink(tx: Queryable, name: keyof typeof STAGED): Sink {
  let batch: (string | number | null)[][] = [];
  // A fact's numbers come as one comma-separated text (Fact), a column each here; its declared ones as array text.
  const row =
    name === 'stage-import-rows'
      ? (fact: (string | number | null)[]) => [
          ...fact.slice(0, 3),
          fact[4] ? String(fact[4]).slice(1, -1) : null,
          ...String(fact[3]).split(','),
        ]
      : (creative: (string | number | null)[]) => creative;
  const flush = async () => {
    if (batch.length === 0) return;
    // One array a staging column.
    const columns = Object.fromEntries(STAGED[name].map((column, c) => [column, batch.map((row) => row[c])]));
    batch = [];
    await queryAs(tx, name, columns);
  };
  return {
    async add(rows) {
      for (const added of rows) batch.push(row(added));
      if (batch.length >= BATCH) await flush();
    },
    end: flush,
    abort: () => {},
  };
}

export type ImportDeps = {
  readStream(path: string): AsyncIterable<Uint8Array>;
  copy: boolean;
  now: number;
  /** How many creatives an import holds in memory at most (default 100,000); tests set a few. */
  creativesHeld?: number;
  /** How often progress shows, in ms (default 1,000); tests set 0. */
  progressEvery?: number;
  progress(line: string): void;
};

/**
 * Rows and rows a second on stderr, every `every` ms, for an import that runs longer than that; once the file is read,
 * each step of the write that follows as it begins, for a long file's writes take longer than its reading.
 */
function progressMeter(progress: (line: string) => void, every: number) {
  const started = performance.now();
  let shown = started;
  let stepStarted = started;
  let showing = false;
  let rows = 0;
  return {
    read(count: number) {
      rows += count;
      const now = performance.now();
      if (now - shown < every) return;
      shown = now;
      showing = true;
      progress(
        `import: ${rows.toLocaleString('en-US')} rows read, ` +
          `${Math.round(rows / (Math.max(now - started, 1) / 1000)).toLocaleString('en-US')} rows/s`,
      );
    },
    step(done: string, next: string) {
      if (!showing) return;
      const now = performance.now();
      progress(`import: ${done} in ${((now - stepStarted) / 1000).toFixed(1)} s; ${next}`);
      stepStarted = now;
    },
    get rows() {
      return rows;
    },
  };
}

type Meter = ReturnType<typeof progressMeter>;

/**
 * Every line staged: the facts as they are read, then the creatives they name; creatives put out of memory on the
 * way are staged between two COPYs of facts. A fault ends the COPY under way, so the transaction can roll back.
 */
async function stageFile(tx: Sql, file: ImportFile, deps: ImportDeps, meter: Meter) {
  const sink = (table: 'import_rows' | 'import_creatives') =>
    deps.copy
      ? copySink(tx, table)
      : batchSink(tx, table === 'import_rows' ? 'stage-import-rows' : 'stage-import-creatives');
  const stageCreatives = async (creatives: Iterable<StagedCreative>) => {
    const into = await sink('import_creatives');
    try {
      let batch: StagedCreative[] = [];
      for (const creative of creatives) {
        batch.push(creative);
        if (batch.length === BATCH) {
          await into.add(batch);
          batch = [];
        }
      }
      await into.add(batch);
      await into.end();
    } catch (error) {
      into.abort(error);
      throw error;
    }
  };
  let facts = await sink('import_rows');
  try {
    for await (const rows of file.facts()) {
      await facts.add(rows);
      meter.read(rows.length);
      const evicted = file.takeEvicted();
      if (evicted.length) {
        await facts.end();
        await stageCreatives(evicted);
        facts = await sink('import_rows');
      }
    }
    await facts.end();
  } catch (error) {
    facts.abort(error);
    throw error;
  }
  await stageCreatives(file.creatives());
}

export async function importFile(sql: Sql, { flags }: Parsed, deps: ImportDeps) {
  const f = readFlags(flags, ['org', 'file']);
  const org = uuidFlag('org', f.org);
  await requireOrganization(sql, org);
  const imported = await factsTransaction(sql, async (tx) => {
    await query(tx, 'create-import-staging');
    await query(tx, 'create-import-creatives-staging');
    await query(tx, 'defer-rollups');
    await query(tx, 'mark-updates-changing');
    const declared = await query(tx, 'list-base-metrics', { org });
    const file = new ImportFile(
      readCsvLines(streamFileFlag(deps.readStream(f.file), f.file)),
      deps.creativesHeld,
      declared,
    );
    const meter = progressMeter(deps.progress, deps.progressEvery ?? 1000);
    await stageFile(tx, file, deps, meter);
    meter.step(`${meter.rows.toLocaleString('en-US')} rows read`, 'writing accounts, campaigns, creatives and facts');
    await query(tx, 'analyze-import-staging');
    const [conflict] = await query(tx, 'find-import-currency-conflict', { org });
    if (conflict)
      throw new UsageError(
        `--file: line ${conflict.line}: the ad account ${conflict.platform}/${conflict.external_id} ` +
          `("${conflict.name}") is in ${conflict.existing}, not ${conflict.given}`,
      );
    const accounts = await query(tx, 'import-accounts', { org });
    await query(tx, 'import-campaigns', { org, withStatus: file.withStatus });
    await query(tx, 'import-creatives', { org });
    const [{ repeated_days }] = await query(tx, 'import-facts', { org });
    meter.step('facts written', 'summing them into the rollups');
    await query(tx, 'rebuild-deferred-rollups');
    meter.step('rollups summed', 'committing, then refreshing the statistics of the tables it grew');
    await query(tx, 'mark-fetched', { adAccounts: accounts.map((a) => a.id), at: new Date(deps.now) });
    // The file's facts, each creative's day once: every line of a creative whose days rose, and the others' days.
    return file.risingLines() + repeated_days;
  });
  const warnings = await rateWarnings(sql, org);
  return { ...result({ rows: imported, warnings }, `${imported} fact rows imported into ${org}`), warnings };
}
