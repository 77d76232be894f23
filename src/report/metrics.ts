// The system metrics of docs/decisions.md §5: base sums, and ratios computed from a row's summed parts, never averaged.
import { tidy } from './numberRules.ts';
import { BASE_METRIC_DECLARATIONS } from '../dataModel.ts';
import { evaluate, formulaSql, parseFormula, references, type Formula } from './formula.ts';

/** The built-in base metrics, as src/dataModel.ts declares them, in its order. */
export type BaseMetric = (typeof BASE_METRIC_DECLARATIONS)[number]['name'];
export const BASE_METRICS: readonly BaseMetric[] = BASE_METRIC_DECLARATIONS.map((m) => m.name);
export type Sums = Record<BaseMetric, number>;

/**
 * A system metric: how it is computed from a row's sums, and the same in SQL over the sums' columns (for exports
 * rendered by PostgreSQL, rendered.ts): the same IEEE double operations in the same order, so the same values. of,
 * per and scale say the same for code that computes it without a Sums object (copyCsv.ts): of, or of / per × scale
 * (null where per is 0).
 */
type SystemMetric = {
  kind: string;
  conversionDerived: boolean;
  compute: (s: Sums) => number | null;
  /** The same over the sums' columns, each named prefix + its base metric's name. */
  sql: (prefix: string) => string;
  of: BaseMetric;
  per?: BaseMetric;
  scale: number;
};

const base = (kind: string, conversionDerived: boolean, name: BaseMetric): SystemMetric => ({
  kind,
  conversionDerived,
  compute: (s) => s[name],
  sql: (prefix) => prefix + name,
  of: name,
  scale: 1,
});

const ratio = (kind: string, conversionDerived: boolean, a: BaseMetric, b: BaseMetric, scale = 1): SystemMetric => ({
  kind,
  conversionDerived,
  of: a,
  per: b,
  scale,
  // A null part (money that could not be converted) is null, as in SQL: JavaScript would read null / x as 0.
  compute: (s) => (s[a] === null || s[b] === null || s[b] === 0 ? null : (s[a] / s[b]) * scale),
  sql: (p) =>
    `case when ${p}${b} = 0 then null else (${p}${a} / ${p}${b})${scale === 1 ? '' : ` * ${scale}::float8`} end`,
});

export const SYSTEM_METRICS: Record<string, SystemMetric> = {
  ...Object.fromEntries(BASE_METRIC_DECLARATIONS.map((m) => [m.name, base(m.kind, m.conversionDerived, m.name)])),
  ctr: ratio('percent', false, 'clicks', 'impressions', 100),
  cpc: ratio('money', false, 'spend', 'clicks'),
  cpm: ratio('money', false, 'spend', 'impressions', 1000),
  cpa: ratio('money', true, 'spend', 'conversions'),
  conversion_rate: ratio('percent', true, 'conversions', 'clicks', 100),
  roas: ratio('ratio', true, 'conversion_value', 'spend'),
  view_rate: ratio('percent', false, 'video_views', 'impressions', 100),
  completion_rate: ratio('percent', false, 'video_completions', 'video_views', 100),
};

/**
 * An organization's metric as the report's scope reads it: a custom one has a formula; a declared base metric
 * (docs/decisions.md §5) has a slot instead, its place in a fact's `declared` numbers.
 */
export type CustomMetric = {
  name: string;
  formula: string | null;
  kind?: string;
  slot?: number | null;
  conversionDerived?: boolean;
};

/**
 * A declared base metric's sum in a grouping's rows (report/declared.ts): a column named apart from the system sums,
 * the dimension keys and the comparison range's prefix. A metric of it is a formula of one reference to the column,
 * so it goes wherever a custom metric goes (filters, sort, summary, comparison, every format).
 */
export const DECLARED = 'declared_';
export type DeclaredSum = { column: string; slot: number; money: boolean };

/** A metric the request may return: a system one, or a custom one with its parsed formula. */
/** kind: money, count, percent, ratio or decimal (docs/decisions.md §5), which sets an XLSX cell's display format. */
export type MetricPlan = {
  name: string;
  conversionDerived: boolean;
  formula?: Formula;
  kind?: string;
  /** A declared base metric's sum. */
  declared?: DeclaredSum;
};

/**
 * The columns of an answer's rows (report/query.ts composes them): the dimension keys, then the metrics, then with a
 * comparison range the same metrics over it (docs/decisions.md §6); with a summary, a last row of totals.
 */
export type RowShape = { keys: readonly string[]; metrics: MetricPlan[]; compared: boolean; summary: boolean };

/**
 * Every metric name an organization knows, with what it needs. A custom formula may use other custom metrics: their
 * formulas are put in its place, so that only system metrics remain. A formula that cannot be parsed, or that uses an
 * unknown metric or itself (`readout apply` refuses both), yields null.
 */
export function metricCatalogue(custom: CustomMetric[]): Map<string, MetricPlan> {
  const catalogue = new Map<string, MetricPlan>();
  for (const [name, metric] of Object.entries(SYSTEM_METRICS))
    catalogue.set(name, { name, conversionDerived: metric.conversionDerived, kind: metric.kind });
  const declared = new Map<string, MetricPlan>();
  for (const { name, slot, kind, conversionDerived } of custom) {
    if (slot == null || name in SYSTEM_METRICS) continue;
    const column = DECLARED + name;
    const plan = {
      name,
      conversionDerived: conversionDerived ?? false,
      formula: { op: 'ref', name: column } as Formula,
      kind,
      declared: { column, slot, money: kind === 'money' },
    };
    declared.set(name, plan);
    catalogue.set(name, plan);
  }
  const sources = new Map(
    custom
      .filter((metric) => !(metric.name in SYSTEM_METRICS) && metric.formula !== null && metric.slot == null)
      .map((metric) => [metric.name, metric as CustomMetric & { formula: string }]),
  );
  const expanded = new Map<string, Formula>();
  const expand = (name: string, within: string[]): Formula => {
    const done = expanded.get(name);
    if (done) return done;
    let tree: Formula;
    try {
      tree = inline(parseFormula(sources.get(name)!.formula), (ref) =>
        ref in SYSTEM_METRICS
          ? { op: 'ref', name: ref }
          : declared.has(ref)
            ? declared.get(ref)!.formula!
            : sources.has(ref) && !within.includes(ref)
              ? expand(ref, [...within, ref])
              : INVALID,
      );
    } catch {
      tree = INVALID;
    }
    if (within.length === 1) expanded.set(name, tree);
    return tree;
  };
  for (const { name, kind } of sources.values()) {
    const tree = expand(name, [name]);
    // A formula over a conversion metric is itself conversion-derived: a plan without them must not see it.
    const derived = references(tree).some(
      (ref) =>
        SYSTEM_METRICS[ref]?.conversionDerived ?? declared.get(ref.slice(DECLARED.length))?.conversionDerived ?? false,
    );
    catalogue.set(name, { name, conversionDerived: derived, formula: tree, kind });
  }
  return catalogue;
}

/** A reference to no metric: evaluates to null. */
const INVALID: Formula = { op: 'ref', name: '__invalid__' };

function inline(tree: Formula, ref: (name: string) => Formula): Formula {
  switch (tree.op) {
    case 'num':
      return tree;
    case 'ref':
      return ref(tree.name);
    case 'neg':
      return { op: 'neg', arg: inline(tree.arg, ref) };
    default:
      return { op: tree.op, left: inline(tree.left, ref), right: inline(tree.right, ref) };
  }
}

/** A formula's reference to a metric, in SQL over the sums' columns named prefix + their name. */
const metricRef = (prefix: string) => (name: string) =>
  SYSTEM_METRICS[name]?.sql(prefix) ?? (name.startsWith(DECLARED) ? prefix + name : 'null::float8');

/**
 * A metric as a SQL expression over the sums' columns (a grouping's query): a system one's SQL, or a custom formula
 * over them (formula.ts), which gives the same double as computing it here does. prefix: the comparison range's
 * sums are named COMPARED + their base metric (report/query.ts). Over many rows, formulaColumns computes it faster.
 */
export function metricSql(metric: MetricPlan, prefix = ''): string {
  return metric.formula ? formulaSql(metric.formula, metricRef(prefix)) : SYSTEM_METRICS[metric.name].sql(prefix);
}

/** Rows with their formulas' operations as columns: the query that gives them, and each metric's SQL over it. */
export type MetricColumns = { source: string; sql: (metric: MetricPlan, prefix?: string) => string };

/**
 * source's rows with each operation of the formulas among metrics (over the sums named prefix + name, for each of
 * prefixes) computed once, in a column of its own: one query level a depth of operations (`offset 0` keeps each a
 * level). Nested in one expression, an operation whose argument is
 * another's is not inlined (PostgreSQL inlines a function that uses an argument twice only when it is cheap) and runs
 * as a call a row, 15 times slower (BENCHMARKS.md, "Custom metrics"). Without formulas, source as it is.
 */
export function formulaColumns(source: string, metrics: MetricPlan[], prefixes = ['']): MetricColumns {
  const levels: string[][] = [];
  const named = new Map<string, string>();
  const step = (sql: string, depth: number) => {
    let name = named.get(sql);
    if (name === undefined) {
      name = `_step${named.size}`;
      named.set(sql, name);
      (levels[depth - 1] ??= []).push(`${sql} as ${name}`);
    }
    return name;
  };
  const computed = new Map<string, string>();
  for (const prefix of prefixes) {
    for (const { name, formula } of metrics)
      if (formula) computed.set(`${prefix} ${name}`, formulaSql(formula, metricRef(prefix), step));
  }
  let text = source;
  for (const level of levels) text = `select s.*, ${level.join(', ')} from (\n${text}\n) s offset 0`;
  return {
    source: text,
    sql: (metric, prefix = '') => computed.get(`${prefix} ${metric.name}`) ?? metricSql(metric, prefix),
  };
}

/** The prefix of the comparison range's sums in a composed query's columns (docs/decisions.md §6). */
export const COMPARED = 'compare_';

/** The comparison range's sums of a composed query's row (report/query.ts), as the main range's are read. */
export function comparedSums(row: Record<string, unknown>, declared: readonly DeclaredSum[] = []): Sums {
  const sums = {} as Sums;
  for (const name of BASE_METRICS) sums[name] = row[COMPARED + name] as number;
  for (const { column } of declared) (sums as Record<string, unknown>)[column] = row[COMPARED + column];
  return sums;
}

/**
 * Writes one row's metrics, in the order asked, into `out` from `at`: every system one only when a formula needs it.
 */
export function writeMetrics(sums: Sums, metrics: MetricPlan[], out: unknown[], at: number): void {
  let system: Record<string, number | null> | undefined;
  for (let i = 0; i < metrics.length; i++) {
    const metric = metrics[i];
    if (metric.formula) {
      if (!system) {
        // A declared base metric's sum is read from the row itself, behind the system metrics' values.
        system = Object.create(sums) as Record<string, number | null>;
        for (const [name, m] of Object.entries(SYSTEM_METRICS)) system[name] = m.compute(sums);
      }
      out[at + i] = tidy(evaluate(metric.formula, system));
    } else {
      out[at + i] = tidy(SYSTEM_METRICS[metric.name].compute(sums));
    }
  }
}

/** The metrics object of one row: only the metrics asked for. */
export function rowMetrics(sums: Sums, metrics: MetricPlan[]): Record<string, number | null> {
  const values: (number | null)[] = [];
  writeMetrics(sums, metrics, values, 0);
  const out: Record<string, number | null> = {};
  for (let i = 0; i < metrics.length; i++) out[metrics[i].name] = values[i];
  return out;
}
