// `readout apply` (docs/decisions.md §12): in one transaction, with the organization locked against a concurrent apply,
// the file is checked against what the organization holds, and the difference written, or only shown (dry run).
import { transaction, type Sql } from '../store/database.ts';
import { query, type Queryable } from '../store/queries.ts';
import { readConfig, type Problem } from './document.ts';
import { changesOf, type Change, type ChangeSet } from './changes.ts';
import { readStored, type Stored } from './state.ts';

export type ApplyOutcome = { ok: true; changes: Change[]; applied: boolean } | { ok: false; problems: Problem[] };

/** Rolls the transaction back, keeping what it found. */
class DryRun extends Error {
  constructor(readonly outcome: ApplyOutcome) {
    super('dry run');
  }
}

export async function applyCatalogue(
  sql: Sql,
  org: string,
  source: string,
  options: { dryRun: boolean; prune: boolean },
): Promise<ApplyOutcome> {
  const file = readConfig(source);
  if (!file.ok) return file;
  try {
    return await transaction(sql, async (tx) => {
      // A run that may write takes the writers' lock first (docs/decisions.md §14): a report's currency is one.
      if (!options.dryRun) await query(tx, 'lock-writers');
      await query(tx, 'catalogue-lock', { org });
      const stored = await readStored(tx, org);
      const planned = changesOf(file, stored, options.prune);
      if ('problems' in planned) throw new DryRun({ ok: false, problems: planned.problems });
      // applied: whether this run was to write; with nothing to change, the organization already matches the file.
      if (options.dryRun || planned.changes.length === 0)
        throw new DryRun({ ok: true, changes: planned.changes, applied: !options.dryRun });
      await write(tx, org, planned, stored);
      return { ok: true as const, changes: planned.changes, applied: true };
    });
  } catch (error) {
    if (error instanceof DryRun) return error.outcome;
    throw error;
  }
}

/** Writes the changes; stored is what they were found against (the transaction holds the organization's lock). */
async function write(tx: Queryable, org: string, planned: ChangeSet, stored: Stored) {
  // Only what changes is written: an unchanged report keeps its updatedAt.
  const touched = new Set(planned.changes.map((c) => `${c.type}\0${c.name}`));
  const changed = (type: Change['type'], name: string) => touched.has(`${type}\0${name}`);
  const accountIds = new Map(stored.adAccounts.map((a) => [`${a.platform}/${a.externalId}`, a.id]));
  for (const { want } of planned.accounts) {
    const key = `${want.platform}/${want.externalId}`;
    if (!changed('ad account', key)) continue;
    const [row] = await query(tx, 'catalogue-save-ad-account', {
      org,
      platform: want.platform,
      externalId: want.externalId,
      name: want.name,
      currency: want.currency,
      timeZone: want.timeZone,
    });
    accountIds.set(key, row.id);
  }
  // A pruned base metric's slot is emptied first: a metric declared in the same run may take it.
  for (const metric of planned.deletes.baseMetrics) {
    await query(tx, 'catalogue-clear-base-metric', { org, metric: metric.name });
    await query(tx, 'catalogue-delete-base-metric', { org, metric: metric.name });
  }
  for (const { want } of planned.baseMetrics) {
    if (!changed('base metric', want.name)) continue;
    await query(tx, 'catalogue-save-base-metric', {
      org,
      name: want.name,
      displayName: want.displayName,
      kind: want.kind,
      whole: want.whole,
      conversionDerived: want.conversionDerived,
      description: want.description,
      slot: want.slot,
    });
  }
  for (const { want } of planned.metrics) {
    if (!changed('metric', want.name)) continue;
    await query(tx, 'catalogue-save-metric', {
      org,
      name: want.name,
      displayName: want.displayName,
      kind: want.kind,
      unit: want.unit,
      description: want.description,
      formula: want.formula,
    });
  }
  // The first stored segment of a name is the one the file's entry of that name is (changes.ts).
  const segmentIds = new Map(stored.segments.map((s) => [s.name, s.id] as const).reverse());
  for (const { want, id } of planned.segments) {
    if (!changed('segment', want.name)) continue;
    const campaigns = want.campaigns.map((key) => stored.campaigns.get(key)!);
    const [row] = await query(tx, 'catalogue-save-segment', {
      org,
      id,
      name: want.name,
      description: want.description,
      campaigns,
    });
    segmentIds.set(want.name, row.id);
  }
  for (const { want, id } of planned.reports) {
    if (!changed('report', want.name)) continue;
    await query(tx, 'catalogue-save-report', {
      org,
      id,
      name: want.name,
      description: want.description,
      kind: want.kind,
      currency: want.currency,
      metrics: want.metrics,
      groupings: want.groupings,
      adAccounts: want.adAccounts.map((key) => accountIds.get(key)!),
      segments: want.segments.map((name) => segmentIds.get(name)!),
    });
  }
  for (const report of planned.deletes.reports) await query(tx, 'catalogue-delete-report', { org, report: report.id });
  for (const segment of planned.deletes.segments)
    await query(tx, 'catalogue-delete-segment', { org, segment: segment.id });
  for (const metric of planned.deletes.metrics)
    await query(tx, 'catalogue-delete-metric', { org, metric: metric.name });
  await query(tx, 'catalogue-bump-version', { org });
}
