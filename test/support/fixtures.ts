// Organizations, clients and tokens for tests, made through the operator commands' own code.
import { runCommand } from '../../src/cli/run.ts';
import type { Sql } from '../../src/store/database.ts';
import type { TestApp } from './app.ts';

export async function cli(sql: Sql, argv: string[], now = Date.now()) {
  const outcome = await runCommand([...argv, '--json'], { sql, now, progress: () => {} });
  if (outcome.code !== 0) throw new Error(`readout ${argv.join(' ')} failed: ${outcome.stderr}`);
  return JSON.parse(outcome.stdout);
}

export const ALL_SCOPES =
  'reports:read reports:data reports:export campaigns:read ad-accounts:read segments:read organizations:read';

export async function createOrg(
  sql: Sql,
  options: { plan?: string; name?: string; currency?: string } = {},
): Promise<string> {
  const args = ['org', 'create', '--name', options.name ?? 'Acme', '--plan', options.plan ?? 'enterprise'];
  if (options.currency) args.push('--currency', options.currency);
  return (await cli(sql, args)).organizationId;
}

export type Client = { clientId: string; clientSecret: string; secretId: string };

export async function createClient(
  sql: Sql,
  org: string,
  options: { scopes?: string; reports?: string; adAccounts?: string; name?: string } = {},
): Promise<Client> {
  const args = [
    'client',
    'create',
    '--org',
    org,
    '--name',
    options.name ?? 'warehouse',
    '--scopes',
    options.scopes ?? ALL_SCOPES,
  ];
  args.push('--reports', options.reports ?? 'all', '--ad-accounts', options.adAccounts ?? 'all');
  return cli(sql, args);
}

export function tokenRequest(fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  };
}

export async function getToken(t: TestApp, client: Client, scope?: string): Promise<string> {
  const fields: Record<string, string> = {
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
  };
  if (scope !== undefined) fields.scope = scope;
  const res = await t.fetch('/api/connect/token', tokenRequest(fields));
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token;
}

export const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });

/** A fresh organization on the given plan with one all-scopes client and its token. */
export async function tenant(t: TestApp, options: { plan?: string; scopes?: string } = {}) {
  const org = await createOrg(t.db.sql, { plan: options.plan });
  const client = await createClient(t.db.sql, org, { scopes: options.scopes });
  const token = await getToken(t, client);
  return { org, client, token };
}
