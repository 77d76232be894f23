// `client create|list|revoke` and `client secret add|revoke`: API credentials; a secret is shown once, stored hashed.
import { transaction, type Sql } from '../store/database.ts';
import { query, queryAs } from '../store/queries.ts';
import { isScope, SCOPES } from '../auth/scopes.ts';
import { hashSecret, newClientId, newClientSecret } from '../auth/secrets.ts';
import { nameFlag, readFlags, UsageError, uuidFlag, type Parsed } from './args.ts';
import { requireOrganization } from './org.ts';
import { result, table } from './output.ts';

function scopesFlag(value: string): string[] {
  const names = [...new Set(value.split(/[\s,]+/).filter(Boolean))];
  if (names.length === 0) throw new UsageError(`--scopes needs at least one of ${SCOPES.join(' ')}`);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length) throw new UsageError(`unknown scope ${unknown.join(', ')}; scopes are ${SCOPES.join(' ')}`);
  return names;
}

/**
 * `all`, or a comma-separated list of UUIDs that must belong to the organization. Required, and never empty: a
 * client that may read nothing is made by mistake far more often than on purpose (docs/decisions.md §10).
 */
async function allowListFlag(sql: Sql, name: string, value: string, org: string, table: 'reports' | 'ad_accounts') {
  if (value === 'all') return { all: true, ids: [] as string[] };
  if (value.trim() === '') throw new UsageError(`--${name} must be all or a comma-separated list of ids`);
  const ids = [...new Set(value.split(',').map((id) => uuidFlag(name, id.trim())))];
  const found = await queryAs<{ id: string }>(
    sql,
    table === 'reports' ? 'find-organization-reports' : 'find-organization-ad-accounts',
    { org, ids },
  );
  const missing = ids.filter((id) => !found.some((row) => row.id === id));
  if (missing.length) throw new UsageError(`--${name}: not in organization ${org}: ${missing.join(', ')}`);
  return { all: false, ids };
}

function expiryFlag(value: string | undefined, now: number): Date | null {
  if (value === undefined) return null;
  const date = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--expires must be an ISO 8601 date or time, got "${value}"`);
  if (date.getTime() <= now) throw new UsageError(`--expires must be in the future, got "${value}"`);
  return date;
}

export async function clientCreate(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['org', 'name', 'scopes', 'reports', 'ad-accounts']);
  const org = uuidFlag('org', f.org);
  const name = nameFlag('name', f.name);
  const scopes = scopesFlag(f.scopes);
  await requireOrganization(sql, org);
  const reports = await allowListFlag(sql, 'reports', f.reports, org, 'reports');
  const adAccounts = await allowListFlag(sql, 'ad-accounts', f['ad-accounts'], org, 'ad_accounts');
  const clientId = newClientId();
  const clientSecret = newClientSecret();
  const secretId = await transaction(sql, async (tx) => {
    await query(tx, 'create-client', {
      id: clientId,
      org,
      name,
      scopes,
      reportsAll: reports.all,
      reportIds: reports.ids,
      adAccountsAll: adAccounts.all,
      adAccountIds: adAccounts.ids,
    });
    const [secret] = await query(tx, 'create-client-secret', {
      client: clientId,
      hash: (await hashSecret(clientSecret)) as never,
      expires: null,
    });
    return secret.id;
  });
  return result(
    { clientId, clientSecret, secretId },
    `client ${clientId}\nsecret ${clientSecret}\n(the secret is shown this once; it is stored only as a hash)`,
  );
}

export async function clientSecretAdd(sql: Sql, { flags }: Parsed, now: number) {
  const f = readFlags(flags, ['client'], ['expires']);
  const expires = expiryFlag(f.expires, now);
  const clientSecret = newClientSecret();
  const [secret] = await query(sql, 'create-client-secret', {
    client: f.client,
    hash: (await hashSecret(clientSecret)) as never,
    expires,
  });
  if (!secret) throw new UsageError(`no live client ${f.client}`);
  return result(
    { clientId: f.client, secretId: secret.id, clientSecret },
    `secret ${secret.id} for ` +
      `${f.client}${expires ? `, expires ${expires.toISOString()}` : ''}\n${clientSecret}\n(shown this once)`,
  );
}

export async function clientSecretRevoke(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['client', 'secret']);
  const secretId = uuidFlag('secret', f.secret);
  const [row] = await query(sql, 'revoke-client-secret', { client: f.client, secret: secretId });
  if (!row) throw new UsageError(`client ${f.client} has no secret ${secretId}`);
  return result(
    { clientId: f.client, secretId, revoked: true },
    `secret ${secretId} of ${f.client} revoked; new tokens are refused`,
  );
}

export async function clientRevoke(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['client']);
  const [row] = await query(sql, 'revoke-client', { client: f.client });
  if (!row) throw new UsageError(`no client ${f.client}`);
  return result({ clientId: f.client, revoked: true }, `client ${f.client} revoked; its tokens stop within a second`);
}

/** An allow-list in a table: all, or how many ids. */
const allOr = (list: string | string[]) => (typeof list === 'string' ? list : `${list.length} listed`);

export async function clientList(sql: Sql, { flags }: Parsed) {
  const org = uuidFlag('org', readFlags(flags, ['org']).org);
  await requireOrganization(sql, org);
  const rows = await query(sql, 'list-clients', { org });
  const clients = rows.map((row) => ({
    clientId: row.id,
    name: row.name,
    scopes: row.scopes,
    reports: row.reports_all ? 'all' : row.report_ids,
    adAccounts: row.ad_accounts_all ? 'all' : row.ad_account_ids,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
    secrets: row.secrets,
  }));
  const shown = clients.map((c) => ({
    ...c,
    state: c.revokedAt ? 'revoked' : 'live',
    scopes: c.scopes.join(' '),
    reports: allOr(c.reports),
    adAccounts: allOr(c.adAccounts),
  }));
  return result(
    { clients },
    table(shown, ['clientId', 'name', 'state', 'reports', 'adAccounts', 'scopes']) || 'no clients',
  );
}
