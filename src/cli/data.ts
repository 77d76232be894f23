// `import`, `generate` and `account connection`: loading platform data (DECISIONS §10).
import type { Sql } from '../store/database.ts';
import { CsvError, readCsv } from './csv.ts';
import { query, type Queryable } from '../store/queries.ts';
import { CONNECTION_STATUSES, CREATIVE_FORMATS, PLATFORMS } from '../dataModel.ts';
import { readFileFlag, readFlags, UsageError, uuidFlag, type Parsed } from './args.ts';
import { requireOrganization } from './org.ts';
import { result } from './output.ts';
import { rateWarnings } from './fx.ts';

/** The import file's columns, in order (README: "Importing platform data"). */
export const IMPORT_COLUMNS = [
  'date', 'platform', 'account_id', 'account_name', 'currency', 'campaign_id', 'campaign_name',
  'creative_id', 'creative_name', 'format', 'impressions', 'clicks', 'spend', 'conversions',
  'conversion_value', 'video_views', 'video_completions',
] as const;

const FORMATS: readonly string[] = CREATIVE_FORMATS;
const STATUSES: readonly string[] = CONNECTION_STATUSES;
const BATCH = 5000;

type Staged = (string | number)[];

function checkDate(value: string) {
  const d = new Date(`${value}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

/** Checks every line; the first fault stops the import before anything is written. */
export function parseImport(text: string): Staged[] {
  const rows: Staged[] = [];
  const currencies = new Map<string, string>();
  const fail = (line: number, why: string): never => {
    throw new UsageError(`--file: line ${line}: ${why}`);
  };
  let header = true;
  try {
    for (const { line, fields } of readCsv(text)) {
      if (header) {
        header = false;
        if (fields.join(',') !== IMPORT_COLUMNS.join(',')) fail(line, `the header must be ${IMPORT_COLUMNS.join(',')}`);
        continue;
      }
      if (fields.length !== IMPORT_COLUMNS.length) fail(line, `has ${fields.length} fields, expected ${IMPORT_COLUMNS.length}`);
      const [date, platform, account, accountName, currency, campaign, campaignName, creative, creativeName, format, ...numbers] = fields;
      if (!checkDate(date)) fail(line, `date "${date}" is not a YYYY-MM-DD calendar date`);
      if (!(PLATFORMS as readonly string[]).includes(platform)) fail(line, `platform "${platform}" is not one of ${PLATFORMS.join(', ')}`);
      if (!/^[A-Z]{3}$/.test(currency)) fail(line, `currency "${currency}" is not a three-letter code`);
      if (!FORMATS.includes(format)) fail(line, `format "${format}" is not one of ${FORMATS.join(', ')}`);
      for (const [name, value] of [['account_id', account], ['campaign_id', campaign], ['creative_id', creative], ['account_name', accountName], ['campaign_name', campaignName], ['creative_name', creativeName]]) {
        if (!value.trim() || value.length > 200) fail(line, `${name} must be 1 to 200 characters`);
      }
      const key = `${platform}:${account}`;
      if ((currencies.get(key) ?? currency) !== currency) fail(line, `account ${account} is in ${currencies.get(key)} on an earlier line, not ${currency}`);
      currencies.set(key, currency);
      const parsed = numbers.map((value, n) => {
        const column = IMPORT_COLUMNS[10 + n];
        const whole = ['impressions', 'clicks', 'video_views', 'video_completions'].includes(column);
        if (!(whole ? /^\d{1,15}$/ : /^\d{1,15}(\.\d{1,6})?$/).test(value)) {
          fail(line, `${column} "${value}" must be a non-negative ${whole ? 'whole number' : 'number'}`);
        }
        return Number(value);
      });
      rows.push([line, date, platform, account, accountName, currency, campaign, campaignName, creative, creativeName, format, ...parsed]);
    }
  } catch (error) {
    if (error instanceof CsvError) fail(error.line, error.message);
    throw error;
  }
  if (header) fail(1, 'the file is empty');
  return rows;
}

async function stage(tx: Queryable & Sql, rows: Staged[], copy: boolean) {
  await query(tx, 'create-import-staging');
  if (copy) {
    // PostgreSQL: COPY is the fastest way in. (pglite-socket does not speak COPY, hence the batches below.)
    const stream = await tx`copy import_rows from stdin`.writable();
    const escape = (v: string | number) => String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
    await new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      let i = 0;
      const write = () => {
        while (i < rows.length) {
          if (!stream.write(`${rows[i++].map(escape).join('\t')}\n`)) return void stream.once('drain', write);
        }
        stream.end(resolve);
      };
      write();
    });
    return;
  }
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    // One array a staging column: the line number, then the file's columns.
    const columns = Array.from({ length: IMPORT_COLUMNS.length + 1 }, (_, c) => batch.map((row) => row[c]));
    await query(tx, 'stage-import-rows', columns as never[]);
  }
}

export type ImportDeps = { readText(path: string): Promise<string>; copy: boolean; now: number };

export async function importFile(sql: Sql, { flags }: Parsed, deps: ImportDeps) {
  const f = readFlags(flags, ['org', 'file']);
  const org = uuidFlag('org', f.org);
  const text = await readFileFlag(deps.readText, f.file);
  const rows = parseImport(text);
  await requireOrganization(sql, org);
  const imported = await sql.begin(async (tx) => {
    await stage(tx as unknown as Sql, rows, deps.copy);
    const [conflict] = await query<{ line: number; existing: string; given: string }>(tx, 'find-import-currency-conflict', [org]);
    if (conflict) throw new UsageError(`--file: line ${conflict.line}: the ad account is in ${conflict.existing}, not ${conflict.given}`);
    const [out] = await query<{ rows: number; account_ids: string[] }>(tx, 'apply-import', [org]);
    await query(tx, 'mark-fetched', [out.account_ids, new Date(deps.now)]);
    return out.rows;
  });
  const warnings = await rateWarnings(sql);
  return { ...result({ rows: imported, warnings }, `${imported} fact rows imported into ${org}`), warnings };
}

export async function accountConnection(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['account', 'status']);
  const account = uuidFlag('account', f.account);
  if (!STATUSES.includes(f.status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${f.status}"`);
  const [row] = await query(sql, 'set-connection-status', [account, f.status]);
  if (!row) throw new UsageError(`no ad account ${account}`);
  return result({ adAccountId: account, connectionStatus: f.status }, `ad account ${account}: connection ${f.status}`);
}

const count = (name: string, value: string, max: number) => {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got "${value}"`);
  return Number(value);
};

export async function generate(sql: Sql, { flags }: Parsed, now: number, progress: (line: string) => void) {
  const f = readFlags(flags, ['org', 'accounts', 'campaigns', 'days'], ['creatives']);
  const org = uuidFlag('org', f.org);
  const accounts = count('accounts', f.accounts, 1000);
  const campaigns = count('campaigns', f.campaigns, 1_000_000);
  const creatives = count('creatives', f.creatives ?? String(campaigns * 5), 5_000_000);
  const days = count('days', f.days, 3650);
  if (campaigns < accounts) throw new UsageError('--campaigns must be at least --accounts');
  const { currency } = await requireOrganization(sql, org);
  const last = new Date(now - 86_400_000).toISOString().slice(0, 10);
  const first = new Date(now - days * 86_400_000).toISOString().slice(0, 10);
  progress(`generate: ${accounts} accounts, ${campaigns} campaigns, ${creatives} creatives`);
  await query(sql, 'generate-entities', [org, accounts, campaigns, creatives, currency]);
  // One chunk of days at a time, each committed, so progress shows and memory stays flat.
  let rows = 0;
  const chunkDays = Math.max(1, Math.floor(200_000 / creatives));
  for (let start = 0; start < days; start += chunkDays) {
    const from = new Date(Date.parse(first) + start * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Math.min(Date.parse(first) + (start + chunkDays - 1) * 86_400_000, Date.parse(last))).toISOString().slice(0, 10);
    const [out] = await query<{ rows: number }>(sql, 'generate-facts', [org, from, to]);
    rows += out.rows;
    progress(`generate: ${Math.min(start + chunkDays, days)}/${days} days, ${rows} fact rows`);
  }
  await query(sql, 'mark-organization-fetched', [org, new Date(now)]);
  return result({ rows }, `${rows} fact rows generated for ${org}`);
}
