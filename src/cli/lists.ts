// `org list`, `account list`, `report list`, `segment list`, `metric list`: what an operator needs to see (the ids
// `client create --reports` and `--ad-accounts` take, among others), as an aligned table or one JSON object. An
// organization's lists are the API's own list queries, read whole with nothing cut by an allow-list, so the JSON
// holds the objects the API answers with (spec/openapi.json).
import type { Sql } from '../store/database.ts';
import { query, queryAs, type NamedParams } from '../store/queries.ts';
import { adAccountsAllowed, reportsAllowed } from '../auth/visibility.ts';
import type { QueryName } from '../store/queryNames.ts';
import type { ListRow } from '../http/paging.ts';
import { readFlags, uuidFlag, type Parsed } from './args.ts';
import { requireOrganization } from './org.ts';
import { result, table } from './output.ts';

type Row = Record<string, unknown>;

export async function orgList(sql: Sql) {
  const organizations = await query(sql, 'cli-list-organizations');
  const text = table(organizations, ['id', 'name', 'currency', 'plan', 'budgetPerHour', 'locked']);
  return result({ organizations }, text || 'no organizations');
}

const PAGE = 1000;
/** The API's list queries' parameters as a client allowed everything, with no other filter: each takes its own. */
const EVERYTHING: NamedParams = {
  ...reportsAllowed({ reports: 'all' }),
  ...adAccountsAllowed({ adAccounts: 'all' }),
  platform: null,
};

/** Every item of one of the API's list queries, a page at a time. */
async function allItems(sql: Sql, name: QueryName, params: NamedParams): Promise<Row[]> {
  const items: Row[] = [];
  for (let page = 1; ; page++) {
    const [row] = await queryAs<ListRow>(sql, name, { page, size: PAGE, ...params });
    items.push(...(row.items as Row[]));
    if (items.length >= row.total || row.items.length === 0) return items;
  }
}

/** One organization's list, under the key the JSON output names. */
async function organizationList(
  sql: Sql,
  { flags }: Parsed,
  name: QueryName,
  key: string,
  columns: string[],
  shown = (row: Row) => row,
) {
  const org = uuidFlag('org', readFlags(flags, ['org']).org);
  await requireOrganization(sql, org);
  const rows = await allItems(sql, name, { org, ...EVERYTHING });
  return result(
    { organizationId: org, [key]: rows },
    table(rows.map(shown), columns) || `no ${key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`,
  );
}

export const accountList = (sql: Sql, args: Parsed) =>
  organizationList(sql, args, 'list-ad-accounts', 'adAccounts', [
    'id',
    'platform',
    'externalId',
    'name',
    'currency',
    'connectionStatus',
  ]);

export const reportList = (sql: Sql, args: Parsed) =>
  // The table counts a report's ad accounts (their ids are in --json, and in `account list`).
  organizationList(
    sql,
    args,
    'list-reports',
    'reports',
    ['id', 'name', 'kind', 'currency', 'accounts', 'metrics', 'groupings'],
    (row) => ({
      ...row,
      accounts: (row.adAccountIds as string[]).length,
    }),
  );

export const segmentList = (sql: Sql, args: Parsed) =>
  organizationList(sql, args, 'list-segments', 'segments', ['id', 'name', 'campaignCount', 'description']);

export const metricList = (sql: Sql, args: Parsed) =>
  organizationList(sql, args, 'list-organization-metrics', 'metrics', [
    'name',
    'system',
    'kind',
    'unit',
    'displayName',
    'formula',
  ]);
