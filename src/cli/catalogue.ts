// `apply` and `config export` (docs/decisions.md §12): an organization's reports, segments, custom metrics and ad
// accounts as a file, kept in the operator's own repository and applied idempotently.
import type { Sql } from '../store/database.ts';
import { applyCatalogue } from '../catalogue/apply.ts';
import { FileTooLarge, formatProblem, MAX_FILE_BYTES } from '../catalogue/document.ts';
import { exportCatalogue } from '../catalogue/export.ts';
import { changeLine } from '../catalogue/changes.ts';
import { readFileFlag, readFlags, UsageError, uuidFlag, type Parsed, type ReadText } from './args.ts';
import { requireOrganization } from './org.ts';
import { query } from '../store/queries.ts';
import { result } from './output.ts';

/** docs/decisions.md §12: what apply reads at most. */
const APPLY_LIMIT = { maxBytes: MAX_FILE_BYTES, command: 'apply', instead: 'split it, or apply it in parts' };

export async function apply(sql: Sql, { flags }: Parsed, readText: ReadText) {
  const f = readFlags(flags, ['org', 'file']);
  const org = uuidFlag('org', f.org);
  await requireOrganization(sql, org);
  const dryRun = flags.has('dry-run');
  const name = f.file === '-' ? 'stdin' : f.file;
  let outcome: Awaited<ReturnType<typeof applyCatalogue>>;
  try {
    outcome = await applyCatalogue(sql, org, await readFileFlag(readText, f.file, APPLY_LIMIT), {
      dryRun,
      prune: flags.has('prune'),
    });
  } catch (error) {
    if (error instanceof FileTooLarge)
      throw new UsageError(
        `${name}${error.line ? `:${error.line}` : ''}: not applied: ${error.message}; nothing written`,
      );
    throw error;
  }
  if (!outcome.ok) {
    const count = outcome.problems.length;
    throw new UsageError(
      `${name}: ${count} ${count === 1 ? 'problem' : 'problems'}, nothing written`,
      outcome.problems.map((p) => formatProblem(name, p)),
    );
  }
  const { changes, applied } = outcome;
  // A new report currency builds its converted rollups (migration 019): the next report is planned from them.
  if (applied && changes.length > 0) await query(sql, 'analyze-catalogue');
  const lines = changes.map(changeLine);
  const summary =
    changes.length === 0
      ? `no changes: the organization already matches ${name}`
      : dryRun
        ? `dry run: ${changes.length} ${changes.length === 1 ? 'change' : 'changes'}, nothing written`
        : `applied ${changes.length} ${changes.length === 1 ? 'change' : 'changes'}`;
  return result({ organizationId: org, changes, applied }, [...lines, summary].join('\n'));
}

export async function configExport(sql: Sql, { flags }: Parsed) {
  const org = uuidFlag('org', readFlags(flags, ['org']).org);
  const organization = await requireOrganization(sql, org);
  const yaml = await exportCatalogue(sql, org, organization.name);
  return result({ organizationId: org, yaml }, yaml.trimEnd());
}
