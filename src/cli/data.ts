// `import`, `generate` and `account connection`: loading platform data (docs/decisions.md §10).
import { transaction, type Sql } from '../store/database.ts';
import { CsvError, readCsvPieces, type CsvRecord } from './csv.ts';
import { query, queryAs, type Queryable } from '../store/queries.ts';
import { CAMPAIGN_STATUSES, CONNECTION_STATUSES, CREATIVE_FORMATS, PLATFORMS } from '../dataModel.ts';
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
  'impressions',
  'clicks',
  'spend',
  'conversions',
  'conversion_value',
  'video_views',
  'video_completions',
] as const;
const OPTIONAL_COLUMNS = ['campaign_status'] as const;

const FORMATS: readonly string[] = CREATIVE_FORMATS;
const STATUSES: readonly string[] = CONNECTION_STATUSES;
const CAMPAIGN_STATES: readonly string[] = CAMPAIGN_STATUSES;
/** Which of the numbers, from impressions on, are counts (whole numbers). */
const WHOLE = IMPORT_COLUMNS.slice(10).map((name) =>
  ['impressions', 'clicks', 'video_views', 'video_completions'].includes(name),
);
/** The names' places in a staged row, each 1 to 200 characters. */
const NAMED: [number, string][] = [
  [3, 'account_id'],
  [6, 'campaign_id'],
  [8, 'creative_id'],
  [4, 'account_name'],
  [7, 'campaign_name'],
  [9, 'creative_name'],
];
const BATCH = 5000;

/** A staged row: the line, the file's columns in IMPORT_COLUMNS order (numbers as numbers), the campaign's status. */
type Staged = (string | number | null)[];

function checkDate(value: string) {
  const d = new Date(`${value}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

const fail = (line: number, why: string): never => {
  throw new UsageError(`--file: line ${line}: ${why}`);
};

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

/** Where each column is in the file's records, from its header: every column once, campaign_status optional. */
function readHeader(line: number, fields: string[]): { at: number[]; status: number } {
  const known: readonly string[] = [...IMPORT_COLUMNS, ...OPTIONAL_COLUMNS];
  const separator = fields.length < IMPORT_COLUMNS.length ? otherSeparator(fields.join(',')) : undefined;
  if (separator)
    fail(line, `the header's names are separated by ${separator}: the file must be comma-separated (RFC 4180)`);
  const unknown = fields.filter((name) => !known.includes(name));
  const missing = IMPORT_COLUMNS.filter((name) => !fields.includes(name));
  const twice = fields.filter((name, i) => fields.indexOf(name) !== i);
  if (unknown.length || missing.length || twice.length) {
    const why = [
      missing.length ? `lacks ${missing.join(', ')}` : '',
      unknown.length ? `has unknown ${unknown.map((n) => `"${n}"${meant(n, known)}`).join(', ')}` : '',
      twice.length ? `repeats ${twice.join(', ')}` : '',
    ].filter(Boolean);
    fail(line, `the header ${why.join('; ')}: it must name ${IMPORT_COLUMNS.join(',')}, and may add campaign_status`);
  }
  return { at: IMPORT_COLUMNS.map((name) => fields.indexOf(name)), status: fields.indexOf('campaign_status') };
}

type Header = { at: number[]; status: number; width: number };

/**
 * Checks every record as it comes; the first fault stops the import (its transaction rolls back, nothing is
 * written). Holds only the accounts' currencies, whatever the file's size. Records come, and rows go, a chunk's at a
 * time.
 */
export async function* importRows(
  pieces: AsyncIterable<CsvRecord[]> | Iterable<CsvRecord[]>,
): AsyncGenerator<Staged[]> {
  const seen = { currencies: new Map<string, string>(), date: '' };
  let header: Header | undefined;
  try {
    for await (const records of pieces) {
      let from = 0;
      if (!header) {
        header = { ...readHeader(records[0].line, records[0].fields), width: records[0].fields.length };
        from = 1;
      }
      const rows: Staged[] = new Array(records.length - from);
      for (let r = from; r < records.length; r++) rows[r - from] = stage(records[r], header, seen);
      if (rows.length) yield rows;
    }
  } catch (error) {
    if (error instanceof CsvError) fail(error.line, error.message);
    throw error;
  }
  if (!header) fail(1, 'the file is empty');
}

/**
 * One record checked and staged. seen: each account's currency so far, and the last date checked (a file is mostly
 * sorted by day: a date checked once holds for the lines that repeat it).
 */
function stage({ line, fields }: CsvRecord, header: Header, seen: { currencies: Map<string, string>; date: string }) {
  if (fields.length !== header.width) fail(line, `has ${fields.length} fields, expected ${header.width}`);
  const { at } = header;
  const row: Staged = new Array(IMPORT_COLUMNS.length + 2);
  row[0] = line;
  for (let c = 0; c < 10; c++) row[c + 1] = fields[at[c]];
  const date = row[1] as string;
  if (date !== seen.date) {
    if (!checkDate(date)) fail(line, `date "${date}" is not a YYYY-MM-DD calendar date`);
    seen.date = date;
  }
  const platform = row[2] as string;
  const account = row[3] as string;
  const currency = row[5] as string;
  const format = row[10] as string;
  if (!(PLATFORMS as readonly string[]).includes(platform))
    fail(line, `platform "${platform}" is not one of ${PLATFORMS.join(', ')}`);
  if (!/^[A-Z]{3}$/.test(currency)) fail(line, `currency "${currency}" is not a three-letter code`);
  if (!FORMATS.includes(format)) fail(line, `format "${format}" is not one of ${FORMATS.join(', ')}`);
  for (const [c, name] of NAMED) {
    const value = row[c] as string;
    if (value.length > 200 || !value.trim()) fail(line, `${name} must be 1 to 200 characters`);
  }
  const status = header.status < 0 ? null : fields[header.status];
  if (status !== null && !CAMPAIGN_STATES.includes(status))
    fail(line, `campaign_status "${status}" is not one of ${CAMPAIGN_STATES.join(', ')}`);
  const key = `${platform}:${account}`;
  const known = seen.currencies.get(key);
  if (known === undefined) seen.currencies.set(key, currency);
  else if (known !== currency) fail(line, `account ${account} is in ${known} on an earlier line, not ${currency}`);
  for (let c = 10; c < IMPORT_COLUMNS.length; c++) {
    const value = fields[at[c]];
    const whole = WHOLE[c - 10];
    if (!(whole ? /^\d{1,15}$/ : /^\d{1,15}(\.\d{1,6})?$/).test(value))
      fail(line, `${IMPORT_COLUMNS[c]} "${value}" must be a non-negative ${whole ? 'whole number' : 'number'}`);
    row[c + 1] = Number(value);
  }
  row[IMPORT_COLUMNS.length + 1] = status;
  return row;
}

/** Where staged rows go: COPY on PostgreSQL, batches of inserts on the embedded socket (which does not speak COPY). */
type Sink = { add(rows: Staged[]): Promise<void>; end(): Promise<void>; abort(error: unknown): void };

async function copySink(tx: Sql): Promise<Sink> {
  const stream = await tx`copy import_rows from stdin`.writable();
  let failed: unknown;
  stream.on('error', (error) => (failed ??= error));
  // COPY text format (PostgreSQL, COPY "Text Format"): backslash, tab and line breaks escaped; most fields have none.
  const special = /[\\\t\n\r]/;
  const escapeText = (v: string | number | null) =>
    v === null
      ? '\\N'
      : typeof v === 'number' || !special.test(v)
        ? v
        : v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
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
      for (const row of rows) {
        let line = `${row[0]}`;
        for (let c = 1; c < row.length; c++) line += `\t${escapeText(row[c])}`;
        pending += `${line}\n`;
      }
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

function batchSink(tx: Queryable): Sink {
  let batch: Staged[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    // One array a staging column: the line number, the file's columns, the campaign's status.
    const columns = Array.from({ length: IMPORT_COLUMNS.length + 2 }, (_, c) => batch.map((row) => row[c]));
    batch = [];
    await queryAs(tx, 'stage-import-rows', columns);
  };
  return {
    async add(rows) {
      for (const row of rows) batch.push(row);
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
  progress(line: string): void;
};

/** Rows and rows a second on stderr, once a second, for an import that runs longer than one. */
function progressMeter(progress: (line: string) => void) {
  const started = performance.now();
  let shown = started;
  let rows = 0;
  return (count: number) => {
    rows += count;
    const now = performance.now();
    if (now - shown < 1000) return;
    shown = now;
    progress(
      `import: ${rows.toLocaleString('en-US')} rows read, ` +
        `${Math.round(rows / ((now - started) / 1000)).toLocaleString('en-US')} rows/s`,
    );
  };
}

export async function importFile(sql: Sql, { flags }: Parsed, deps: ImportDeps) {
  const f = readFlags(flags, ['org', 'file']);
  const org = uuidFlag('org', f.org);
  await requireOrganization(sql, org);
  const tick = progressMeter(deps.progress);
  const imported = await transaction(sql, async (tx) => {
    await query(tx, 'lock-writers');
    await query(tx, 'create-import-staging');
    await query(tx, 'defer-rollups');
    const sink = deps.copy ? await copySink(tx as unknown as Sql) : batchSink(tx);
    let withStatus = false;
    try {
      for await (const rows of importRows(readCsvPieces(streamFileFlag(deps.readStream(f.file), f.file)))) {
        withStatus = rows[0][rows[0].length - 1] !== null;
        await sink.add(rows);
        tick(rows.length);
      }
      await sink.end();
    } catch (error) {
      sink.abort(error);
      throw error;
    }
    await query(tx, 'analyze-import-staging');
    const [conflict] = await query(tx, 'find-import-currency-conflict', [org]);
    if (conflict)
      throw new UsageError(
        `--file: line ${conflict.line}: the ad account ${conflict.platform}/${conflict.external_id} ` +
          `("${conflict.name}") is in ${conflict.existing}, not ${conflict.given}`,
      );
    const [out] = await query(tx, 'apply-import', [org, withStatus]);
    await query(tx, 'rebuild-deferred-rollups');
    await query(tx, 'mark-fetched', [out.account_ids, new Date(deps.now)]);
    return out.rows;
  });
  await query(sql, 'analyze-facts');
  const warnings = await rateWarnings(sql, org);
  return { ...result({ rows: imported, warnings }, `${imported} fact rows imported into ${org}`), warnings };
}

export async function accountConnection(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['account', 'status']);
  const account = uuidFlag('account', f.account);
  if (!STATUSES.includes(f.status))
    throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${f.status}"`);
  const [row] = await query(sql, 'set-connection-status', [account, f.status]);
  if (!row) throw new UsageError(`no ad account ${account}`);
  return result({ adAccountId: account, connectionStatus: f.status }, `ad account ${account}: connection ${f.status}`);
}

const count = (name: string, value: string, max: number) => {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got "${value}"`);
  return Number(value);
};

export async function generate(sql: Sql, { flags }: Parsed, now: number, progress: (line: string) => void) {
  const f = readFlags(flags, ['org', 'accounts', 'campaigns', 'days'], ['creatives', 'currencies']);
  const org = uuidFlag('org', f.org);
  const accounts = count('accounts', f.accounts, 1000);
  const campaigns = count('campaigns', f.campaigns, 1_000_000);
  const creatives = count('creatives', f.creatives ?? String(campaigns * 5), 5_000_000);
  const days = count('days', f.days, 3650);
  // Totals, spread in turn (generate-entities.sql): fewer would leave accounts without campaigns, or campaigns
  // without creatives.
  if (campaigns < accounts)
    throw new UsageError('--campaigns must be at least --accounts: it is a total, spread over the accounts');
  if (creatives < campaigns)
    throw new UsageError('--creatives must be at least --campaigns: it is a total, spread over the campaigns');
  const { currency } = await requireOrganization(sql, org);
  // Accounts in turn in each of --currencies (default: the organization's), for trying conversion at scale.
  const currencies = (f.currencies ?? currency).split(',').map((c) => c.trim().toUpperCase());
  const bad = currencies.find((c) => !/^[A-Z]{3}$/.test(c));
  if (bad !== undefined || currencies.length > accounts) {
    throw new UsageError(
      bad !== undefined
        ? `--currencies must list three-letter codes, got "${bad}"`
        : '--currencies lists more currencies than --accounts',
    );
  }
  const last = new Date(now - 86_400_000).toISOString().slice(0, 10);
  const first = new Date(now - days * 86_400_000).toISOString().slice(0, 10);
  progress(`generate: ${accounts} accounts, ${campaigns} campaigns, ${creatives} creatives`);
  // One transaction: a run stopped half-way (killed, the database gone) leaves nothing of itself behind, not accounts
  // and campaigns without their facts. The facts go in a chunk of days at a time, so progress shows and memory stays
  // flat.
  const rows = await transaction(sql, async (tx) => {
    await query(tx, 'lock-writers');
    await query(tx, 'generate-entities', [org, accounts, campaigns, creatives, currencies]);
    let written = 0;
    const chunkDays = Math.max(1, Math.floor(200_000 / creatives));
    for (let start = 0; start < days; start += chunkDays) {
      const from = new Date(Date.parse(first) + start * 86_400_000).toISOString().slice(0, 10);
      const to = new Date(Math.min(Date.parse(first) + (start + chunkDays - 1) * 86_400_000, Date.parse(last)))
        .toISOString()
        .slice(0, 10);
      const [out] = await query(tx, 'generate-facts', [org, from, to]);
      written += out.rows;
      progress(`generate: ${Math.min(start + chunkDays, days)}/${days} days, ${written} fact rows`);
    }
    await query(tx, 'mark-organization-fetched', [org, new Date(now)]);
    return written;
  });
  await query(sql, 'analyze-facts');
  return result({ rows }, `${rows} fact rows generated for ${org}`);
}
