// What `readout apply` would change (docs/decisions.md §12): the file checked against the organization as it stands,
// every problem with its place, then the difference as a list of changes. Nothing here writes.
import { FormulaError, parseFormula, references } from '../report/formula.ts';
import type { CheckedFile, Path, Problem } from './document.ts';
import { DEFAULT_UNIT, type AdAccountEntry, type MetricEntry, type ReportEntry, type SegmentEntry } from './schema.ts';
import type { Stored, StoredAccount, StoredMetric, StoredReport, StoredSegment } from './state.ts';

export type Change = {
  action: 'create' | 'update' | 'delete';
  type: 'ad account' | 'metric' | 'segment' | 'report';
  name: string;
  /** What an update changes. */
  fields?: string[];
};

/** The changes, with what each writes: the entry as the file wants it, and the stored one it replaces or deletes. */
export type Plan = {
  changes: Change[];
  accounts: { want: Omit<StoredAccount, 'id' | 'timeZone'> & { timeZone: string | null } }[];
  metrics: { want: Omit<StoredMetric, 'id'> }[];
  segments: { want: Omit<StoredSegment, 'id'>; id: string | null }[];
  reports: { want: Omit<StoredReport, 'id'>; id: string | null }[];
  deletes: { reports: StoredReport[]; segments: StoredSegment[]; metrics: StoredMetric[] };
};

const CURRENCIES = new Set(typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('currency') : []);
const validCurrency = (code: string) => CURRENCIES.size === 0 || CURRENCIES.has(code);

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const changeLine = (change: Change) =>
  `${{ create: '+', update: '~', delete: '-' }[change.action]} ${change.type} ${JSON.stringify(change.name)}${change.fields ? `: ${change.fields.join(', ')}` : ''}`;

/** The first stored entry of each name: the one a file's entry of that name is. */
function byName<T extends { name: string }>(items: T[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) if (!map.has(item.name)) map.set(item.name, item);
  return map;
}

/** The fields whose values differ, compared as JSON (arrays in order). */
function differing<T extends object>(want: T, have: T, fields: (keyof T & string)[]): string[] {
  return fields.filter((field) => JSON.stringify(want[field]) !== JSON.stringify(have[field]));
}

/** file.problems are those of the entries' shape: an entry that has them is null in file, and checked no further. */
export function plan(
  file: { config: CheckedFile; problems: Problem[]; lineOf: (path: Path) => number | undefined },
  stored: Stored,
  prune: boolean,
): { problems: Problem[] } | Plan {
  const { config, lineOf } = file;
  const problems: Problem[] = [...file.problems];
  const invalid = (list: string, key: string) => config.invalid.has(`${list}:${key}`);
  const problem = (path: Path, message: string) => problems.push({ path, line: lineOf(path), message });
  const firstAt = new Map<string, number>();
  /** Whether key was already listed in list; reports the repeat. */
  const repeated = (list: string, index: number, key: string, what: string) => {
    const seen = firstAt.get(`${list}\0${key}`);
    if (seen !== undefined) {
      problem([list, index], `${what} is already listed at ${list}[${seen}]`);
      return true;
    }
    firstAt.set(`${list}\0${key}`, index);
    return false;
  };
  const checkCurrency = (path: Path, code: string) => {
    if (!validCurrency(code)) problem(path, `unknown currency "${code}" (not an ISO 4217 code)`);
  };

  // Ad accounts: created or renamed by key; their currency is that of the money already loaded for them.
  const storedAccounts = new Map(stored.adAccounts.map((a) => [`${a.platform}/${a.externalId}`, a]));
  const accounts: Plan['accounts'] = [];
  config.adAccounts.forEach((entry, i) => {
    if (entry.currency !== undefined) checkCurrency(['adAccounts', i, 'currency'], entry.currency);
    if (entry.timeZone !== undefined && !validTimeZone(entry.timeZone))
      problem(['adAccounts', i, 'timeZone'], `unknown time zone "${entry.timeZone}"`);
    if (entry.platform === undefined || entry.externalId === undefined) return;
    const key = `${entry.platform}/${entry.externalId}`;
    if (repeated('adAccounts', i, key, `ad account ${key}`)) return;
    const have = storedAccounts.get(key);
    if (have && entry.currency !== undefined && have.currency !== entry.currency) {
      problem(
        ['adAccounts', i, 'currency'],
        `ad account ${key} keeps its money in ${have.currency}; an ad account's currency cannot change`,
      );
    }
    if (config.partial.has(entry)) return;
    accounts.push({ want: { ...(entry as AdAccountEntry), timeZone: entry.timeZone ?? null } });
  });
  const knownAccounts = new Set([
    ...storedAccounts.keys(),
    ...accounts.map((a) => `${a.want.platform}/${a.want.externalId}`),
  ]);

  // Custom metrics: those the file names, and (without --prune) those it leaves as they are.
  const storedMetrics = byName(stored.metrics);
  const fileMetrics = new Map<string, string>();
  config.metrics.forEach((entry, i) => {
    if (entry.name === undefined || repeated('metrics', i, entry.name, `metric "${entry.name}"`)) return;
    if (stored.systemMetrics.has(entry.name))
      problem(['metrics', i, 'name'], `"${entry.name}" is a system metric; a custom metric needs a name of its own`);
    fileMetrics.set(entry.name, entry.formula ?? '');
  });
  const formulas = new Map<string, string>(prune ? [] : stored.metrics.map((m) => [m.name, m.formula]));
  for (const [name, formula] of fileMetrics) formulas.set(name, formula);
  const known = (name: string) => stored.systemMetrics.has(name) || formulas.has(name) || invalid('metrics', name);
  const refs = new Map<string, string[]>();
  config.metrics.forEach((entry, i) => {
    if (entry.name === undefined || entry.formula === undefined || firstAt.get(`metrics\0${entry.name}`) !== i) return;
    const path = ['metrics', i, 'formula'];
    try {
      const names = references(parseFormula(entry.formula));
      refs.set(entry.name, names);
      for (const name of new Set(names))
        if (!known(name)) problem(path, `unknown metric "${name}" in formula "${entry.formula}"`);
    } catch (error) {
      if (!(error instanceof FormulaError)) throw error;
      problem(path, `formula "${entry.formula}" does not parse: ${error.message}`);
    }
  });
  for (const [name, formula] of formulas) {
    if (refs.has(name)) continue;
    try {
      refs.set(name, references(parseFormula(formula)));
    } catch {
      refs.set(name, []);
    }
  }
  config.metrics.forEach((entry, i) => {
    if (entry.name === undefined || firstAt.get(`metrics\0${entry.name}`) !== i) return;
    const loop = cycleThrough(entry.name, refs);
    if (loop)
      problem(
        ['metrics', i, 'formula'],
        loop.length === 2
          ? `${entry.name} refers to itself`
          : `${entry.name} refers to itself through ${loop.slice(1, -1).join(', ')}`,
      );
  });
  const metrics: Plan['metrics'] = config.metrics
    .filter((entry, i) => !config.partial.has(entry) && firstAt.get(`metrics\0${entry.name}`) === i)
    .map((entry) => entry as MetricEntry)
    .map((entry) => ({
      want: { ...entry, displayName: entry.displayName ?? entry.name, unit: entry.unit ?? DEFAULT_UNIT[entry.kind] },
    }));

  // Segments: members are campaigns loaded by import, named by their platform keys.
  const storedSegments = byName(stored.segments);
  const segments: Plan['segments'] = [];
  config.segments.forEach((entry, i) => {
    entry.campaigns?.forEach((key, j) => {
      if (!stored.campaigns.has(key))
        problem(['segments', i, 'campaigns', j], `unknown campaign "${key}" (campaigns come from \`readout import\`)`);
    });
    if (
      entry.name === undefined ||
      repeated('segments', i, entry.name, `segment "${entry.name}"`) ||
      config.partial.has(entry)
    )
      return;
    const want = entry as SegmentEntry;
    segments.push({
      want: { ...want, campaigns: [...want.campaigns].sort() },
      id: storedSegments.get(want.name)?.id ?? null,
    });
  });
  const knownSegments = new Set([...(prune ? [] : storedSegments.keys()), ...segments.map((s) => s.want.name)]);

  // Reports.
  const storedReports = byName(stored.reports);
  const reports: Plan['reports'] = [];
  config.reports.forEach((entry, i) => {
    if (entry.name !== undefined && repeated('reports', i, entry.name, `report "${entry.name}"`)) return;
    if (entry.currency !== undefined) checkCurrency(['reports', i, 'currency'], entry.currency);
    entry.adAccounts?.forEach((key, j) => {
      if (!knownAccounts.has(key) && !invalid('adAccounts', key))
        problem(
          ['reports', i, 'adAccounts', j],
          `unknown ad account "${key}" (list it under adAccounts, or load it with \`readout import\`)`,
        );
    });
    const named = entry.segments ?? [];
    named.forEach((name, j) => {
      if (!knownSegments.has(name) && !invalid('segments', name))
        problem(['reports', i, 'segments', j], `unknown segment "${name}"`);
    });
    if (entry.kind === 'segment' && entry.segments !== undefined && named.length === 0)
      problem(['reports', i, 'segments'], 'a segment report needs at least one segment');
    if (entry.kind !== undefined && entry.kind !== 'segment' && named.length > 0)
      problem(['reports', i, 'segments'], `only segment reports have segments; this one is ${entry.kind}`);
    entry.metrics?.forEach((name, j) => {
      if (!known(name)) problem(['reports', i, 'metrics', j], `unknown metric "${name}"`);
    });
    entry.groupings?.forEach((grouping, j) => {
      if (grouping === 'segment' && entry.kind !== undefined && entry.kind !== 'segment')
        problem(
          ['reports', i, 'groupings', j],
          `a ${entry.kind} report cannot answer segment; only segment reports can`,
        );
    });
    if (config.partial.has(entry)) return;
    const want = entry as ReportEntry;
    reports.push({
      want: { ...want, adAccounts: [...want.adAccounts].sort(), segments: [...want.segments].sort() },
      id: storedReports.get(want.name)?.id ?? null,
    });
  });
  if (problems.length) return { problems: problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };

  // The difference.
  const changes: Change[] = [];
  const note = <W extends object>(
    type: Change['type'],
    name: string,
    want: W,
    have: W | undefined,
    fields: (keyof W & string)[],
  ) => {
    if (!have) changes.push({ action: 'create', type, name });
    else {
      const changed = differing(want, have, fields);
      if (changed.length) changes.push({ action: 'update', type, name, fields: changed });
    }
  };
  for (const { want } of accounts) {
    const key = `${want.platform}/${want.externalId}`;
    const have = storedAccounts.get(key);
    note(
      'ad account',
      key,
      { name: want.name, timeZone: want.timeZone ?? have?.timeZone },
      have && { name: have.name, timeZone: have.timeZone },
      ['name', 'timeZone'],
    );
  }
  for (const { want } of metrics)
    note('metric', want.name, want, storedMetrics.get(want.name), [
      'displayName',
      'kind',
      'unit',
      'description',
      'formula',
    ]);
  for (const { want } of segments)
    note('segment', want.name, want, storedSegments.get(want.name), ['description', 'campaigns']);
  for (const { want } of reports) {
    note('report', want.name, want, storedReports.get(want.name), [
      'description',
      'kind',
      'currency',
      'adAccounts',
      'segments',
      'metrics',
      'groupings',
    ]);
  }
  const deletes: Plan['deletes'] = { reports: [], segments: [], metrics: [] };
  if (prune) {
    const named = (list: { want: { name: string } }[]) => new Set(list.map((item) => item.want.name));
    const keep = { reports: named(reports), segments: named(segments), metrics: named(metrics) };
    // A stored entry whose name the file gives to another (a duplicate name) goes as well.
    const kept = { reports: new Set(reports.map((r) => r.id)), segments: new Set(segments.map((s) => s.id)) };
    deletes.reports = stored.reports.filter((r) => !keep.reports.has(r.name) || !kept.reports.has(r.id));
    deletes.segments = stored.segments.filter((s) => !keep.segments.has(s.name) || !kept.segments.has(s.id));
    deletes.metrics = stored.metrics.filter((m) => !keep.metrics.has(m.name));
    for (const r of deletes.reports) changes.push({ action: 'delete', type: 'report', name: r.name });
    for (const s of deletes.segments) changes.push({ action: 'delete', type: 'segment', name: s.name });
    for (const m of deletes.metrics) changes.push({ action: 'delete', type: 'metric', name: m.name });
  }
  return { changes, accounts, metrics, segments, reports, deletes };
}

/** The names from name back to itself through refs, or null: a formula must not use itself, directly or not. */
function cycleThrough(name: string, refs: Map<string, string[]>): string[] | null {
  const seen = new Set<string>();
  const walk = (at: string, path: string[]): string[] | null => {
    for (const next of refs.get(at) ?? []) {
      if (next === name) return [...path, next];
      if (seen.has(next) || !refs.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return null;
  };
  return walk(name, [name]);
}
