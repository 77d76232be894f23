// `org create`, `plan set`, `subscription lock|unlock`: organizations and their one subscription.
import { transaction, type Sql } from '../store/database.ts';
import { factsTransaction } from '../store/factWrites.ts';
import { query } from '../store/queries.ts';
import { nameFlag, readFlags, UsageError, uuidFlag, type Parsed } from './args.ts';
import { result } from './output.ts';

const CURRENCY = /^[A-Z]{3}$/;

async function planCode(sql: Sql, code: string): Promise<string> {
  const codes = (await query(sql, 'list-plans')).map((row) => row.code);
  if (!codes.includes(code)) throw new UsageError(`--plan must be one of ${codes.join(', ')}, got "${code}"`);
  return code;
}

export async function requireOrganization(sql: Sql, id: string) {
  const [org] = await query(sql, 'get-organization', { id });
  if (!org) throw new UsageError(`no organization ${id}`);
  return org;
}

export async function orgCreate(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['name'], ['plan', 'currency']);
  const name = nameFlag('name', f.name);
  const currency = (f.currency ?? 'USD').toUpperCase();
  if (!CURRENCY.test(currency)) throw new UsageError(`--currency must be a three-letter code, got "${f.currency}"`);
  // Business is the smallest plan with API access: a new organization works out of the box.
  const plan = await planCode(sql, f.plan ?? 'business');
  const organizationId = await transaction(sql, async (tx) => {
    const [org] = await query(tx, 'create-organization', { name, currency });
    await query(tx, 'create-subscription', { org: org.id, plan });
    return org.id;
  });
  return result({ organizationId }, `organization ${organizationId} (${name}, ${currency}, plan ${plan})`);
}

export async function planSet(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['org', 'plan'], ['budget']);
  const org = uuidFlag('org', f.org);
  const plan = await planCode(sql, f.plan);
  let budget: number | null = null;
  if (f.budget !== undefined) {
    if (!/^\d{1,9}$/.test(f.budget))
      throw new UsageError(`--budget must be a whole number of requests an hour, got "${f.budget}"`);
    budget = Number(f.budget);
  }
  await requireOrganization(sql, org);
  const [row] = await query(sql, 'set-plan', { org, plan, budget });
  return result(
    { organizationId: org, plan, limitPerHour: row.budget },
    `organization ${org}: plan ${plan}, ${row.budget} an hour`,
  );
}

export function subscriptionLock(locked: boolean) {
  return async function setLock(sql: Sql, { flags }: Parsed) {
    const org = uuidFlag('org', readFlags(flags, ['org']).org);
    await requireOrganization(sql, org);
    await query(sql, 'set-subscription-lock', { org, locked });
    return result(
      { organizationId: org, locked },
      `organization ${org}: subscription ${locked ? 'locked' : 'unlocked'}`,
    );
  };
}

/**
 * Deletes an organization and everything it owns, in one statement; its clients' tokens stop within a second (migration
 * 018).
 */
export async function deleteOrganization(sql: Sql, org: string) {
  const row = await factsTransaction(sql, async (tx) => (await query(tx, 'delete-organization', { org }))[0], {
    deletes: true,
  });
  return row;
}

export async function orgDelete(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['org'], ['yes']);
  const org = uuidFlag('org', f.org);
  const { name } = await requireOrganization(sql, org);
  if (f.yes === undefined)
    throw new UsageError(
      `org delete removes ${name} (${org}) with its clients, reports and data for good; add --yes to do it`,
    );
  const { clients, factRows } = await deleteOrganization(sql, org);
  return result(
    { organizationId: org, deleted: true, clients, factRows },
    `organization ${org} (${name}) deleted: ${clients} clients (their tokens stop within a second), ${factRows} fact ` +
      `rows`,
  );
}
