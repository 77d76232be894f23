// Row filters (docs/decisions.md §6): each `filter=<field><op><value>` checked against the answer's rows, then
// written as one SQL condition with its value bound (report/query.ts composes them).
import { didYouMean } from '../http/nearest.ts';
import { ApiError } from '../http/problem.ts';
import { UUID_KEYS } from './dimensions.ts';
import type { MetricColumns, MetricPlan } from './metrics.ts';
import { tidySql } from './numberRules.ts';
import { DIMENSION_OPERATORS, METRIC_OPERATORS, type Filter, type FilterOperator } from './params.ts';
import { quoted } from './formats/rendered.ts';

/** A filter checked against the answer: a metric it returns, or one of its rows' dimension keys. */
export type FilterPlan =
  | { text: string; on: 'metric'; metric: MetricPlan; op: FilterOperator; value: number }
  | { text: string; on: 'dimension'; key: string; op: FilterOperator; value: string };

/** A decimal number, as a person writes one: 100, -2.5, .5, 1e3. */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

const bad = (filter: Filter, detail: string) => new ApiError('invalid-parameter', `filter ${filter.text}: ${detail}.`);

/**
 * Each filter checked against the rows it filters: dimensions, the grouping's keys (period: the interval's key,
 * which is not filtered); metrics, the ones the answer returns; known, every metric of the organization's catalogue,
 * and withheld, those the plan does not give, for a clearer refusal.
 */
export function planFilters(
  filters: readonly Filter[],
  dimensions: readonly string[],
  metrics: readonly MetricPlan[],
  { known, withheld }: { known: ReadonlySet<string>; withheld: ReadonlySet<string> },
  period?: string,
): FilterPlan[] {
  return filters.map((filter) => {
    const { field, op, value } = filter;
    const metric = metrics.find((m) => m.name === field);
    if (metric) {
      if (!(METRIC_OPERATORS as readonly string[]).includes(op))
        throw bad(filter, `${op} does not apply to the metric ${field}; use ${METRIC_OPERATORS.join(' ')}`);
      if (!DECIMAL.test(value)) throw bad(filter, `${field} is a metric, and "${value}" is not a decimal number`);
      return { text: filter.text, on: 'metric', metric, op, value: Number(value) };
    }
    if (dimensions.includes(field)) {
      if (!(DIMENSION_OPERATORS as readonly string[]).includes(op))
        throw bad(filter, `${op} does not apply to the dimension ${field}; use ${DIMENSION_OPERATORS.join(' ')}`);
      return { text: filter.text, on: 'dimension', key: field, op, value };
    }
    throw bad(filter, unknownField(field, dimensions, metrics, { known, withheld }, period));
  });
}

function unknownField(
  field: string,
  dimensions: readonly string[],
  metrics: readonly MetricPlan[],
  { known, withheld }: { known: ReadonlySet<string>; withheld: ReadonlySet<string> },
  period?: string,
): string {
  if (field === period) return `the period key ${field} is not filtered; dateFrom and dateTo choose the periods`;
  if (withheld.has(field)) return `${field} is not among your plan's metrics`;
  if (known.has(field)) return `${field} is a metric this answer does not return; add it to metrics to filter on it`;
  const names = [...dimensions, ...metrics.map((m) => m.name)];
  const meant = didYouMean(field, names);
  if (meant) return `no field ${field}; ${meant}`;
  const listed = names.length ? names.join(', ') : 'none';
  return `${field} is neither a dimension of these rows nor a metric the answer returns (${listed})`;
}

const SQL_COMPARISON: Record<string, string> = { '==': '=', '!=': '<>', '>': '>', '>=': '>=', '<': '<', '<=': '<=' };

/**
 * A filter as a condition over a composed query's row `s`, its value bound by bind (which answers its `$n`). A metric
 * is compared as the answer gives it (tidied), so a row kept is one whose shown number holds; null holds nothing,
 * as SQL has it (sqlOf: a metric's SQL over the row, formulaColumns'). Text is compared exactly (uuids in lower
 * case, as they are written), or contained in any case.
 */
export function filterSql(
  filter: FilterPlan,
  bind: (value: string | number) => string,
  sqlOf: MetricColumns['sql'],
): string {
  if (filter.on === 'metric') {
    return `${tidySql(sqlOf(filter.metric))} ${SQL_COMPARISON[filter.op]} ${bind(filter.value)}::float8`;
  }
  const uuid = UUID_KEYS.has(filter.key);
  const column = `s.${quoted(filter.key)}${uuid ? '::text' : ''}`;
  const value = uuid && (filter.op === '==' || filter.op === '!=') ? filter.value.toLowerCase() : filter.value;
  const param = `${bind(value)}::text`;
  switch (filter.op) {
    case '=@':
      return `strpos(lower(${column}), lower(${param})) > 0`;
    case '!@':
      return `strpos(lower(${column}), lower(${param})) = 0`;
    default:
      return `${column} ${SQL_COMPARISON[filter.op]} ${param}`;
  }
}
