// The statement of a CSV export: the grouping's query as a binary COPY of its dimension keys and the sums its metrics
// use, after the settings an export's large query needs for its own transaction.
import { UUID_KEYS } from '../dimensions.ts';
import {
  BASE_METRICS,
  COMPARED,
  formulaColumns,
  SYSTEM_METRICS,
  type BaseMetric,
  type MetricPlan,
  type RowShape,
} from '../metrics.ts';
import { quoted } from './rendered.ts';

/**
 * An export's sort and hash join are each given at least this much memory (PostgreSQL's default, 4 MB, suits many
 * small queries at once; an export is one large one), so a million-row export sorts in memory instead of on disk
 * (BENCHMARKS.md). A server set higher keeps its own setting.
 */
const EXPORT_WORK_MEM = '64MB';

/**
 * An export's transaction plans without Memoize. An export reads each creative's facts once a day of its range, and
 * PostgreSQL, expecting repeats, chose a cached index lookup of a creative per fact (Memoize) over hashing the
 * creatives: over a million creatives on one day the cache missed on every fact, and the first row came several
 * times later than with the parallel hash join it chooses without Memoize (BENCHMARKS.md). Index lookups stay open to
 * small exports.
 */
const EXPORT_PLANNER = `select set_config('enable_memoize', 'off', true)`;

/** The statements that set an export's work_mem and planner settings for its own transaction. */
export const EXPORT_SETTINGS =
  `select set_config('work_mem', '${EXPORT_WORK_MEM}', true) ` +
  `where pg_size_bytes(current_setting('work_mem')) < pg_size_bytes('${EXPORT_WORK_MEM}'); ${EXPORT_PLANNER}`;

/**
 * The statements that send source's rows as CopyRows reads them, in source's order: the export's settings for its own
 * transaction (a query of several statements is one), then the COPY. source: an answer's query (its parameters
 * written in: COPY takes none), whose columns shape says (query.ts); a sum no metric uses is left out,
 * and PostgreSQL then does not compute it. A uuid key is sent as a uuid (a source giving other text for it fails):
 * as text, the ids cost PostgreSQL a seventh of the export (BENCHMARKS.md). name: the source's, first in the text
 * for pg_stat_activity.
 */
export function copyStatement(source: string, shape: RowShape, name: string): string {
  const { keys, metrics } = shape;
  const computed = formulaColumns(source, metrics, shape.compared ? ['', COMPARED] : ['']);
  const columns = [
    // The summary's row (query.ts) is marked first: its first cell is Total, which no uuid column can hold.
    ...(shape.summary ? ['q._total'] : []),
    ...keys.map((key) => `q.${quoted(key)}::${UUID_KEYS.has(key) ? 'uuid' : 'text'}`),
    ...sumsUsed(metrics).map((sum) => `q.${sum}::float8`),
    // A custom metric's value (formula.ts, the same double as computed here), after the sums.
    ...metrics.filter((metric) => metric.formula).map((metric) => `(${computed.sql(metric)})::float8`),
    // Every metric over the comparison range, computed, last.
    ...(shape.compared ? metrics.map((metric) => `(${computed.sql(metric, COMPARED)})::float8`) : []),
  ];
  const select = `select ${columns.join(', ')} from (\n${computed.source}\n) q`;
  return `/* ${name}, as binary COPY */ ${EXPORT_SETTINGS}; copy (${select}) to stdout (format binary)`;
}

/** The sums the system metrics among metrics are computed from, in BASE_METRICS order (custom ones come computed). */
export function sumsUsed(metrics: MetricPlan[]): BaseMetric[] {
  const used = new Set(
    metrics
      .filter((metric) => !metric.formula)
      .flatMap(({ name }) => [SYSTEM_METRICS[name].of, SYSTEM_METRICS[name].per]),
  );
  return BASE_METRICS.filter((sum) => used.has(sum));
}
