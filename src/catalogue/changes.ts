// What `readout apply` would change (docs/decisions.md §12): the file checked against the organization as it stands,
// every problem with its place, then the difference as a list of changes. Nothing here writes.
import { FormulaError, parseFormula, references } from '../report/formula.ts';
import type { CheckedFile, Path, Problem } from './document.ts';
import {
  DEFAULT_UNIT,
  MAX_BASE_METRICS,
  type AdAccountEntry,
  type BaseMetricEntry,
  type MetricEntry,
  type ReportEntry,
  type SegmentEntry,
} from './schema.ts';
import type { Stored, StoredAccount, StoredBaseMetric, StoredMetric, StoredReport, StoredSegment } from './state.ts';

export type Change = {
  action: 'create' | 'update' | 'delete';
  type: 'ad account' | 'base metric' | 'metric' | 'segment' | 'report';
  name: string;
  /** What an update changes. */
  fields?: string[];
};

/** The changes, with what each writes: the entry as the file wants it, and the stored one it replaces or deletes. */
export type ChangeSet = {
  changes: Change[];
  accounts: { want: Omit<StoredAccount, 'id' | 'timeZone'> & { timeZone: string | null } }[];
  baseMetrics: { want: Omit<StoredBaseMetric, 'id'> }[];
  metrics: { want: Omit<StoredMetric, 'id'> }[];
  segments: { want: Omit<StoredSegment, 'id'>; id: string | null }[];
  reports: { want: Omit<StoredReport, 'id'>; id: string | null }[];
  deletes: {
    reports: StoredReport[];
    segments: StoredSegment[];
    metrics: StoredMetric[];
    baseMetrics: StoredBaseMetric[];
  };
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

const MARKS = { create: '+', update: '~', delete: '-' } as const;

export const changeLine = (change: Change) =>
  `${MARKS[change.action]} ${change.type} ${JSON.stringify(change.name)}` +
  (change.fields ? `: ${change.fields.join(', ')}` : '');

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
/** What every step of finding the changes shares: the file, the problems found so far, the first index of each key. */
type Check = {
  config: CheckedFile;
  problems: Problem[];
  problem(path: Path, message: string): void;
  /** Whether key was already listed in list; reports the repeat. */
  repeated(list: string, index: number, key: string, what: string): boolean;
  /** Whether index holds the first entry of key in list (a repeat is reported once, and planned never). */
  first(list: string, key: string | undefined, index: number): boolean;
  /** Whether an entry of list named key was refused by the file's own schema (so it is not "unknown" too). */
  invalid(list: string, key: string): boolean;
  checkCurrency(path: Path, code: string): void;
};

function check(file: { config: CheckedFile; problems: Problem[]; lineOf: (path: Path) => number | undefined }): Check {
  const firstAt = new Map<string, number>();
  const c: Check = {
    config: file.config,
    problems: [...file.problems],
    problem: (path, message) => c.problems.push({ path, line: file.lineOf(path), message }),
    repeated(list, index, key, what) {
      const seen = firstAt.get(`${list}\0${key}`);
      if (seen !== undefined) {
        c.problem([list, index], `${what} is already listed at ${list}[${seen}]`);
        return true;
      }
      firstAt.set(`${list}\0${key}`, index);
      return false;
    },
    first: (list, key, index) => firstAt.get(`${list}\0${key}`) === index,
    invalid: (list, key) => file.config.invalid.has(`${list}:${key}`),
    checkCurrency(path, code) {
      if (!validCurrency(code)) c.problem(path, `unknown currency "${code}" (not an ISO 4217 code)`);
    },
  };
  return c;
}

/** Ad accounts: created or renamed by key; their currency is that of the money already loaded for them. */
function accountChanges(c: Check, stored: Stored): { accounts: ChangeSet['accounts']; known: Set<string> } {
  const storedAccounts = new Map(stored.adAccounts.map((a) => [`${a.platform}/${a.externalId}`, a]));
  const accounts: ChangeSet['accounts'] = [];
  c.config.adAccounts.forEach((entry, i) => {
    if (entry.currency !== undefined) c.checkCurrency(['adAccounts', i, 'currency'], entry.currency);
    if (entry.timeZone !== undefined && !validTimeZone(entry.timeZone))
      c.problem(['adAccounts', i, 'timeZone'], `unknown time zone "${entry.timeZone}"`);
    if (entry.platform === undefined || entry.externalId === undefined) return;
    const key = `${entry.platform}/${entry.externalId}`;
    if (c.repeated('adAccounts', i, key, `ad account ${key}`)) return;
    const have = storedAccounts.get(key);
    if (have && entry.currency !== undefined && have.currency !== entry.currency) {
      c.problem(
        ['adAccounts', i, 'currency'],
        `ad account ${key} keeps its money in ${have.currency}; an ad account's currency cannot change`,
      );
    }
    if (c.config.partial.has(entry)) return;
    accounts.push({ want: { ...(entry as AdAccountEntry), timeZone: entry.timeZone ?? null } });
  });
  const known = new Set([...storedAccounts.keys(), ...accounts.map((a) => `${a.want.platform}/${a.want.externalId}`)]);
  return { accounts, known };
}

/**
 * Declared base metrics (docs/decisions.md §5): named apart from the system and custom metrics, at most
 * MAX_BASE_METRICS kept. A stored one keeps its slot; a new one takes the lowest free one, freed by --prune included
 * (the delete empties it first, apply.ts).
 */
function baseMetricChanges(c: Check, stored: Stored, prune: boolean): ChangeSet['baseMetrics'] {
  const { config } = c;
  const storedBase = byName(stored.baseMetrics);
  const customNames = new Set([
    ...config.metrics.flatMap((m) => (m.name === undefined ? [] : [m.name])),
    ...(prune ? [] : stored.metrics.map((m) => m.name)),
  ]);
  const entries: BaseMetricEntry[] = [];
  config.baseMetrics.forEach((entry, i) => {
    if (entry.name === undefined || c.repeated('baseMetrics', i, entry.name, `base metric "${entry.name}"`)) return;
    if (stored.systemMetrics.has(entry.name))
      c.problem(
        ['baseMetrics', i, 'name'],
        `"${entry.name}" is a system metric; a base metric needs a name of its own`,
      );
    else if (customNames.has(entry.name))
      c.problem(['baseMetrics', i, 'name'], `"${entry.name}" is a custom metric's name; a base metric needs its own`);
    if (!config.partial.has(entry)) entries.push(entry as BaseMetricEntry);
  });
  const named = new Set(config.baseMetrics.map((entry) => entry.name));
  const kept = prune ? [] : stored.baseMetrics.filter((m) => !named.has(m.name));
  const count = new Set([...named].filter((name) => name !== undefined)).size + kept.length;
  if (count > MAX_BASE_METRICS)
    c.problem(
      ['baseMetrics'],
      `an organization declares at most ${MAX_BASE_METRICS} base metrics; this would make ${count}` +
        (kept.length ? ` (${kept.length} kept without --prune: ${kept.map((m) => m.name).join(', ')})` : ''),
    );
  const taken = new Set([...kept, ...entries.flatMap((e) => storedBase.get(e.name) ?? [])].map((m) => m.slot));
  const free = () => {
    let slot = 1;
    while (taken.has(slot)) slot++;
    taken.add(slot);
    return slot;
  };
  return entries.map((entry) => ({
    want: {
      name: entry.name,
      displayName: entry.displayName ?? entry.name,
      kind: entry.kind,
      whole: entry.kind === 'count' ? (entry.whole ?? true) : null,
      conversionDerived: entry.conversionDerived,
      description: entry.description,
      slot: storedBase.get(entry.name)?.slot ?? free(),
    },
  }));
}

/**
 * Custom metrics: those the file names, and (without --prune) those it leaves as they are; every formula parses,
 * names known metrics and does not use itself. known: whether a metric name may be used (by a report).
 */
function metricChanges(
  c: Check,
  stored: Stored,
  prune: boolean,
  base: Set<string>,
): { metrics: ChangeSet['metrics']; known: (name: string) => boolean } {
  const { config } = c;
  const fileMetrics = new Map<string, string>();
  config.metrics.forEach((entry, i) => {
    if (entry.name === undefined || c.repeated('metrics', i, entry.name, `metric "${entry.name}"`)) return;
    if (stored.systemMetrics.has(entry.name))
      c.problem(['metrics', i, 'name'], `"${entry.name}" is a system metric; a custom metric needs a name of its own`);
    else if (base.has(entry.name))
      c.problem(['metrics', i, 'name'], `"${entry.name}" is a base metric's name; a custom metric needs its own`);
    fileMetrics.set(entry.name, entry.formula ?? '');
  });
  const formulas = new Map<string, string>(prune ? [] : stored.metrics.map((m) => [m.name, m.formula]));
  for (const [name, formula] of fileMetrics) formulas.set(name, formula);
  const known = (name: string) =>
    stored.systemMetrics.has(name) ||
    formulas.has(name) ||
    base.has(name) ||
    c.invalid('metrics', name) ||
    c.invalid('baseMetrics', name);
  const refs = new Map<string, string[]>();
  config.metrics.forEach((entry, i) => {
    if (entry.name === undefined || entry.formula === undefined || !c.first('metrics', entry.name, i)) return;
    const path = ['metrics', i, 'formula'];
    try {
      const names = references(parseFormula(entry.formula));
      refs.set(entry.name, names);
      for (const name of new Set(names))
        if (!known(name)) c.problem(path, `unknown metric "${name}" in formula "${entry.formula}"`);
    } catch (error) {
      if (!(error instanceof FormulaError)) throw error;
      c.problem(path, `formula "${entry.formula}" does not parse: ${error.message}`);
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
    if (entry.name === undefined || !c.first('metrics', entry.name, i)) return;
    const loop = cycleThrough(entry.name, refs);
    if (loop)
      c.problem(
        ['metrics', i, 'formula'],
        loop.length === 2
          ? `${entry.name} refers to itself`
          : `${entry.name} refers to itself through ${loop.slice(1, -1).join(', ')}`,
      );
  });
  const metrics: ChangeSet['metrics'] = config.metrics
    .filter((entry, i) => !config.partial.has(entry) && c.first('metrics', entry.name, i))
    .map((entry) => entry as MetricEntry)
    .map((entry) => ({
      want: { ...entry, displayName: entry.displayName ?? entry.name, unit: entry.unit ?? DEFAULT_UNIT[entry.kind] },
    }));
  return { metrics, known };
}

/** Segments: members are campaigns loaded by import, named by their platform keys. */
function segmentChanges(
  c: Check,
  stored: Stored,
  prune: boolean,
): { segments: ChangeSet['segments']; known: Set<string> } {
  const storedSegments = byName(stored.segments);
  const segments: ChangeSet['segments'] = [];
  c.config.segments.forEach((entry, i) => {
    entry.campaigns?.forEach((key, j) => {
      if (!stored.campaigns.has(key))
        c.problem(
          ['segments', i, 'campaigns', j],
          `unknown campaign "${key}" (campaigns come from \`readout import\`)`,
        );
    });
    if (
      entry.name === undefined ||
      c.repeated('segments', i, entry.name, `segment "${entry.name}"`) ||
      c.config.partial.has(entry)
    )
      return;
    const want = entry as SegmentEntry;
    segments.push({
      want: { ...want, campaigns: [...want.campaigns].sort() },
      id: storedSegments.get(want.name)?.id ?? null,
    });
  });
  const known = new Set([...(prune ? [] : storedSegments.keys()), ...segments.map((s) => s.want.name)]);
  return { segments, known };
}

/** Reports: each names known ad accounts, segments (segment reports only) and metrics. */
function reportChanges(
  c: Check,
  stored: Stored,
  known: { accounts: Set<string>; segments: Set<string>; metric: (name: string) => boolean },
): ChangeSet['reports'] {
  const storedReports = byName(stored.reports);
  const reports: ChangeSet['reports'] = [];
  c.config.reports.forEach((entry, i) => {
    if (entry.name !== undefined && c.repeated('reports', i, entry.name, `report "${entry.name}"`)) return;
    if (entry.currency !== undefined) c.checkCurrency(['reports', i, 'currency'], entry.currency);
    entry.adAccounts?.forEach((key, j) => {
      if (!known.accounts.has(key) && !c.invalid('adAccounts', key))
        c.problem(
          ['reports', i, 'adAccounts', j],
          `unknown ad account "${key}" (list it under adAccounts, or load it with \`readout import\`)`,
        );
    });
    const named = entry.segments ?? [];
    named.forEach((name, j) => {
      if (!known.segments.has(name) && !c.invalid('segments', name))
        c.problem(['reports', i, 'segments', j], `unknown segment "${name}"`);
    });
    if (entry.kind === 'segment' && entry.segments !== undefined && named.length === 0)
      c.problem(['reports', i, 'segments'], 'a segment report needs at least one segment');
    if (entry.kind !== undefined && entry.kind !== 'segment' && named.length > 0)
      c.problem(['reports', i, 'segments'], `only segment reports have segments; this one is ${entry.kind}`);
    entry.metrics?.forEach((name, j) => {
      if (!known.metric(name)) c.problem(['reports', i, 'metrics', j], `unknown metric "${name}"`);
    });
    entry.groupings?.forEach((grouping, j) => {
      if (grouping === 'segment' && entry.kind !== undefined && entry.kind !== 'segment')
        c.problem(
          ['reports', i, 'groupings', j],
          `a ${entry.kind} report cannot answer segment; only segment reports can`,
        );
    });
    if (c.config.partial.has(entry)) return;
    const want = entry as ReportEntry;
    reports.push({
      want: { ...want, adAccounts: [...want.adAccounts].sort(), segments: [...want.segments].sort() },
      id: storedReports.get(want.name)?.id ?? null,
    });
  });
  return reports;
}

/** What applying the planned entries changes: each one created or updated, by the fields that differ. */
function difference(
  stored: Stored,
  planned: Pick<ChangeSet, 'accounts' | 'baseMetrics' | 'metrics' | 'segments' | 'reports'>,
): Change[] {
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
  const storedAccounts = new Map(stored.adAccounts.map((a) => [`${a.platform}/${a.externalId}`, a]));
  for (const { want } of planned.accounts) {
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
  const storedBase = byName(stored.baseMetrics);
  for (const { want } of planned.baseMetrics)
    note('base metric', want.name, want, storedBase.get(want.name), [
      'displayName',
      'kind',
      'whole',
      'conversionDerived',
      'description',
    ]);
  const storedMetrics = byName(stored.metrics);
  for (const { want } of planned.metrics)
    note('metric', want.name, want, storedMetrics.get(want.name), [
      'displayName',
      'kind',
      'unit',
      'description',
      'formula',
    ]);
  const storedSegments = byName(stored.segments);
  for (const { want } of planned.segments)
    note('segment', want.name, want, storedSegments.get(want.name), ['description', 'campaigns']);
  const storedReports = byName(stored.reports);
  for (const { want } of planned.reports) {
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
  return changes;
}

/** --prune: the stored reports, segments, custom and declared base metrics the file does not name. */
function pruned(
  stored: Stored,
  planned: Pick<ChangeSet, 'baseMetrics' | 'metrics' | 'segments' | 'reports'>,
): ChangeSet['deletes'] {
  const named = (list: { want: { name: string } }[]) => new Set(list.map((item) => item.want.name));
  const keep = {
    reports: named(planned.reports),
    segments: named(planned.segments),
    metrics: named(planned.metrics),
    baseMetrics: named(planned.baseMetrics),
  };
  // A stored entry whose name the file gives to another (a duplicate name) goes as well.
  const kept = {
    reports: new Set(planned.reports.map((r) => r.id)),
    segments: new Set(planned.segments.map((s) => s.id)),
  };
  return {
    reports: stored.reports.filter((r) => !keep.reports.has(r.name) || !kept.reports.has(r.id)),
    segments: stored.segments.filter((s) => !keep.segments.has(s.name) || !kept.segments.has(s.id)),
    metrics: stored.metrics.filter((m) => !keep.metrics.has(m.name)),
    baseMetrics: stored.baseMetrics.filter((m) => !keep.baseMetrics.has(m.name)),
  };
}

/**
 * The file checked against the organization as it stands, every problem with its place; or what applying it changes.
 */
export function changesOf(
  file: { config: CheckedFile; problems: Problem[]; lineOf: (path: Path) => number | undefined },
  stored: Stored,
  prune: boolean,
): { problems: Problem[] } | ChangeSet {
  const c = check(file);
  const { accounts, known: knownAccounts } = accountChanges(c, stored);
  const baseMetrics = baseMetricChanges(c, stored, prune);
  const base = new Set([
    ...(prune ? [] : stored.baseMetrics.map((m) => m.name)),
    ...baseMetrics.map((m) => m.want.name),
  ]);
  const { metrics, known: knownMetric } = metricChanges(c, stored, prune, base);
  const { segments, known: knownSegments } = segmentChanges(c, stored, prune);
  const reports = reportChanges(c, stored, { accounts: knownAccounts, segments: knownSegments, metric: knownMetric });
  if (c.problems.length) return { problems: c.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };

  const changes = difference(stored, { accounts, baseMetrics, metrics, segments, reports });
  const deletes: ChangeSet['deletes'] = prune
    ? pruned(stored, { baseMetrics, metrics, segments, reports })
    : { reports: [], segments: [], metrics: [], baseMetrics: [] };
  for (const r of deletes.reports) changes.push({ action: 'delete', type: 'report', name: r.name });
  for (const s of deletes.segments) changes.push({ action: 'delete', type: 'segment', name: s.name });
  for (const m of deletes.metrics) changes.push({ action: 'delete', type: 'metric', name: m.name });
  for (const m of deletes.baseMetrics) changes.push({ action: 'delete', type: 'base metric', name: m.name });
  return { changes, accounts, baseMetrics, metrics, segments, reports, deletes };
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
