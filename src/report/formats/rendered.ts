// Worksheet rows rendered by PostgreSQL: each row comes back as its finished XLSX `<row>` element.
//
// A million-row export spent most of the server's time on cells: postgres.js parsing ten columns a row into an
// object, the metrics computed, every number and name formatted, and the garbage of it all. Rendered in the query,
// a row is one text column that the server passes on; PostgreSQL does the formatting while it streams, on its own
// core. The text is byte for byte what sheetRow.ts writes from cells (test/rendered.test.ts), custom metrics included
// (their formulas in SQL, metricSql), but for one spelling: an integer past 2^53 halfway between two shortest
// spellings is written exactly, where JavaScript writes its shortest digits; both read back as the same double. (CSV
// files and the data endpoint's JSON are written by the server from a binary COPY instead, copyRows.ts: formatting in
// SQL cost PostgreSQL more than the query itself.)
import { UUID_KEYS } from '../dimensions.ts';
import { COMPARED, formulaColumns, type RowShape } from '../metrics.ts';
import { tidySql } from '../numberRules.ts';
import { column, styleAttribute } from './sheetRow.ts';
import { cellStyles } from './sheetLayout.ts';

/** The cell text of key's column d{i}: escaped, unless it holds uuids. */
const escaped = (key: string, escaping: string, i: number) => (UUID_KEYS.has(key) ? `d${i}` : escaping);

export const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The query that renders `source`'s rows as worksheet rows, in its order, one `line` column a row. source: an answer's
 * composed query (report/query.ts), whose columns are the dimension keys, the sums, the comparison range's sums and
 * the summary's mark, as shape says. The middle level computes each metric once, as metrics.ts would write it
 * (tidied); `offset 0` keeps it a level of its own, so the outer formatting functions see plain columns and
 * PostgreSQL inlines them. It also numbers the rows: the header is row 1; the summary's row has Total as its first
 * cell. name: the source's, for pg_stat_activity.
 *
 * A uuid key is read as a uuid (a source giving other text for it fails rather than slipping through unescaped) and
 * written as it is: its text is hex digits and hyphens, which XML does not escape. Escaping the two ids of a million
 * creative rows was about a quarter of PostgreSQL's rendering time.
 */
export function renderedQuery(source: string, shape: RowShape, name = 'rows'): string {
  const { keys, metrics, compared, summary } = shape;
  const columns = compared ? [...metrics, ...metrics] : metrics;
  const styles = cellStyles(
    keys.length,
    columns.map((metric) => metric.kind),
  );
  const computed = formulaColumns(source, metrics, compared ? ['', COMPARED] : ['']);
  const key = (key: string) => `q.${quoted(key)}${UUID_KEYS.has(key) ? '::uuid' : ''}::text`;
  const values = [
    ...keys.map((k, i) =>
      summary && i === 0 ? `case when q._total then 'Total' else ${key(k)} end as d0` : `${key(k)} as d${i}`,
    ),
    ...metrics.map((metric, i) => `${tidySql(computed.sql(metric))} as m${i}`),
    ...(compared
      ? metrics.map((metric, i) => `${tidySql(computed.sql(metric, COMPARED))} as m${metrics.length + i}`)
      : []),
    // As text once: a row's twelve references to it would each convert the number again.
    '(row_number() over () + 1)::text as r',
  ];
  const line = sheetLine(keys, columns.length, styles);
  // The name first: pg_stat_activity shows a query's first kilobyte, and the rest is formatting.
  const rows = `select ${values.join(', ')} from (\n${computed.source}\n) q offset 0`;
  return `/* ${name}, rendered as xlsx */ select ${line} as line from (${rows}) v`;
}

/** A worksheet row of the dimension cells d0.. and the metric cells m0.. (a text cell empty for null or ''). */
function sheetLine(keys: readonly string[], metrics: number, styles: number[]): string {
  const cells = [
    ...keys.map(
      (key, i) =>
        `case when d${i} is null or d${i} = '' then '' ` +
        `else '<c r="${column(i)}' || r || '" t="inlineStr"><is><t>' ` +
        `|| ${escaped(key, `export_xml_text(d${i})`, i)} || '</t></is></c>' end`,
    ),
    ...Array.from(
      { length: metrics },
      (_, i) =>
        `case when m${i} is null then '' ` +
        `else '<c r="${column(keys.length + i)}' || r || '"${styleAttribute(styles[keys.length + i])} t="n">` +
        `<v>' || js_number(m${i}) || '</v></c>' end`,
    ),
  ].join(' || ');
  return `'<row r="' || r || '">' || ${cells || `''`} || '</row>'`;
}
