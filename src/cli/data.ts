// `generate` and `account connection`: synthetic platform data and a connection's state (docs/decisions.md §10).
import type { Sql } from '../store/database.ts';
import { factsTransaction } from '../store/factWrites.ts';
import { query } from '../store/queries.ts';
import { CONNECTION_STATUSES } from '../dataModel.ts';
import { readFlags, UsageError, uuidFlag, type Parsed } from './args.ts';
import { requireOrganization } from './org.ts';
import { result } from './output.ts';

const STATUSES: readonly string[] = CONNECTION_STATUSES;

export async function accountConnection(sql: Sql, { flags }: Parsed) {
  const f = readFlags(flags, ['account', 'status']);
  const account = uuidFlag('account', f.account);
  if (!STATUSES.includes(f.status))
    throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${f.status}"`);
  const [row] = await query(sql, 'set-connection-status', { adAccount: account, status: f.status });
  if (!row) throw new UsageError(`no ad account ${account}`);
  return result({ adAccountId: account, connectionStatus: f.status }, `ad account ${account}: connection ${f.status}`);
}

const count = (name: string, value: string, max: number) => {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got "${value}"`);
  return Number(value);
};

export async function generate(
  sql: Sql,
  { flags }: Parsed,
  now: number,
  progress: (line: string) => void,
  chunkRows = 200_000,
) {
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
  // flat; their rollups are rebuilt once, after the last chunk, as an import's are (docs/decisions.md §5).
  const rows = await factsTransaction(sql, async (tx) => {
    await query(tx, 'defer-rollups');
    await query(tx, 'generate-entities', { org, accounts, campaigns, creatives, currencies });
    let written = 0;
    const chunkDays = Math.max(1, Math.floor(chunkRows / creatives));
    for (let start = 0; start < days; start += chunkDays) {
      const from = new Date(Date.parse(first) + start * 86_400_000).toISOString().slice(0, 10);
      const to = new Date(Math.min(Date.parse(first) + (start + chunkDays - 1) * 86_400_000, Date.parse(last)))
        .toISOString()
        .slice(0, 10);
      const [out] = await query(tx, 'generate-facts', { org, from, to });
      written += out.rows;
      progress(`generate: ${Math.min(start + chunkDays, days)}/${days} days, ${written} fact rows`);
    }
    progress('generate: rollups');
    await query(tx, 'rebuild-deferred-rollups');
    await query(tx, 'mark-organization-fetched', { org, at: new Date(now) });
    return written;
  });
  return result({ rows }, `${rows} fact rows generated for ${org}`);
}
