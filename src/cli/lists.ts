// `org list`, `account list`, `report list`, `segment list`, `metric list`: what an operator needs to see (the ids
// `client create --reports` and `--ad-accounts` take, among others), as an aligned table or one JSON object.
import type { Sql } from '../store/database.ts';
import { query } from '../store/queries.ts';
import type { QueryName } from '../store/queryNames.ts';
import { readFlags, uuidFlag, type Parsed } from './args.ts';
import { requireOrganization } from './org.ts';
import { result, table } from './output.ts';

type Row = Record<string, unknown>;

export async function orgList(sql: Sql) {
  const organizations = await query<Row>(sql, 'cli-list-organizations');
  const text = table(organizations, ['id', 'name', 'currency', 'plan', 'budgetPerHour', 'locked']);
  return result({ organizations }, text || 'no organizations');
}

/** One organization's rows of a list query, under the key the JSON output names. */
async function organizationList(sql: Sql, { flags }: Parsed, file: QueryName, key: string, columns: string[]) {
  const org = uuidFlag('org', readFlags(flags, ['org']).org);
  await requireOrganization(sql, org);
  const rows = await query<Row>(sql, file, [org]);
  return result({ organizationId: org, [key]: rows }, table(rows, columns) || `no ${key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)}`);
}

export const accountList = (sql: Sql, args: Parsed) =>
  organizationList(sql, args, 'cli-list-ad-accounts', 'adAccounts', ['id', 'platform', 'externalId', 'name', 'currency', 'connectionStatus']);

export const reportList = (sql: Sql, args: Parsed) =>
  organizationList(sql, args, 'cli-list-reports', 'reports', ['id', 'name', 'kind', 'currency', 'adAccounts', 'metrics', 'groupings']);

export const segmentList = (sql: Sql, args: Parsed) => organizationList(sql, args, 'cli-list-segments', 'segments', ['id', 'name', 'campaigns', 'description']);

export const metricList = (sql: Sql, args: Parsed) =>
  organizationList(sql, args, 'cli-list-metrics', 'metrics', ['name', 'source', 'kind', 'unit', 'displayName', 'formula']);
