// npm run sql:lattice: writes sql/lattice/lattice.sql, the stored sums of the base metrics as
// src/dataModel.ts declares them: a column of each on the facts and on every table of sums (added where it is
// missing, so a database that already holds facts gains a new metric at 0), its catalogue entry, and the functions of
// sql/lattice/template.sql with every {{base: …}} list written out; then how numbers are computed and written, as
// src/report/numberRules.ts declares it (scripts/numberRules.ts), and the JavaScript side of that,
// src/report/formulaOperations.ts. `migrate` applies the file after the numbered migrations whenever it changes
// (src/store/sqlFiles.ts). test/lattice.test.ts and test/numberRules.test.ts fail while either file is not current.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { BASE_METRIC_DECLARATIONS, type BaseMetricDeclaration } from '../src/dataModel.ts';
import { BASE_METRICS, SYSTEM_METRICS } from '../src/report/metrics.ts';
import { expandBaseLists } from '../src/store/baseLists.ts';
import { formulaOperationsSource, numberRulesSql, OPERATIONS_FILE } from './numberRules.ts';

export const LATTICE_FILE = 'sql/lattice/lattice.sql';
export const TEMPLATE_FILE = 'sql/lattice/template.sql';

type Column = { type: string; notNull: boolean; defaultValue: string | null };

/** Every table of sql/schema.sql with a column of the first base metric, and its columns by name. */
function sumTables(schema: string): Map<string, Map<string, Column>> {
  const tables = new Map<string, Map<string, Column>>();
  for (const [, name, body] of schema.matchAll(/create table (\w+) \(\n(.*?)\n\);/gs)) {
    const columns = new Map<string, Column>();
    for (const line of body.split('\n')) {
      const m = /^ {2}(\w+) (.+?)(?: default (.+?))?( not null)?,?$/.exec(line);
      if (!m || m[1] === 'constraint') continue;
      columns.set(m[1], { type: m[2], defaultValue: m[3] ?? null, notNull: m[4] !== undefined });
    }
    if (columns.has(BASE_METRIC_DECLARATIONS[0].name)) tables.set(name, columns);
  }
  return tables;
}

/** A new metric's column in a table: as the table's first metric of its kind has it, 0 in the rows it has. */
function columnFor(table: Map<string, Column>, metric: BaseMetricDeclaration): Column {
  const like = BASE_METRIC_DECLARATIONS.find((m) => m.kind === metric.kind && table.has(m.name))!;
  return table.get(like.name)!;
}

const arrayOf = (type: string) => type.slice(0, -2);

function columns(metrics: readonly BaseMetricDeclaration[], schema: string): string[] {
  const out: string[] = [];
  for (const [name, table] of sumTables(schema)) {
    for (const metric of metrics) {
      const column = columnFor(table, metric);
      if (column.type.endsWith('[]')) {
        // A span's arrays hold a number a creative: a new one holds as many zeros, written once, when it is added.
        out.push(
          `do $$ begin if not exists (select from pg_attribute where attrelid = '${name}'::regclass ` +
            `and attname = '${metric.name}' and not attisdropped) then\n` +
            `  alter table ${name} add column ${metric.name} ${column.type};\n` +
            `  update ${name} set ${metric.name} = array_fill(0::${arrayOf(column.type)}, ` +
            'array[cardinality(creative_ids)]);\n' +
            // Stored uncompressed, as migration 046 keeps the other arrays: a read unpacks every one of a span.
            `  alter table ${name} alter column ${metric.name} set not null, ` +
            `alter column ${metric.name} set storage external;\n` +
            'end if; end $$;',
        );
      } else {
        out.push(
          `alter table ${name} add column if not exists ${metric.name} ${column.type} ` +
            `default ${column.defaultValue ?? '0'}${column.notNull ? ' not null' : ''};`,
        );
      }
      // Summed, never filtered: the planner needs no statistics of it (migration 040).
      out.push(`alter table ${name} alter column ${metric.name} set statistics 0;`);
    }
  }
  return out;
}

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The catalogue's entries of the base metrics, first in it, then the system metrics derived from them. */
function catalogue(metrics: readonly BaseMetricDeclaration[]): string[] {
  const derived = Object.keys(SYSTEM_METRICS).filter((name) => !BASE_METRICS.includes(name as never));
  const rows = metrics.map(
    (m, i) =>
      `(${[m.name, m.displayName, m.kind, m.unit].map(quote).join(', ')}, ${m.conversionDerived}, ` +
      `${quote(m.description)}, ${i + 1})`,
  );
  return [
    'insert into system_metrics (name, display_name, kind, unit, conversion_derived, description, position) values',
    `  ${rows.join(',\n  ')}`,
    'on conflict (name) do update set display_name = excluded.display_name, kind = excluded.kind, ' +
      'unit = excluded.unit,',
    '  conversion_derived = excluded.conversion_derived, description = excluded.description, ' +
      'position = excluded.position;',
    'update system_metrics s set position = v.position from (values',
    `  ${derived.map((name, i) => `(${quote(name)}, ${metrics.length + i + 1})`).join(', ')}`,
    ') v(name, position) where s.name = v.name;',
  ];
}

/** The template's functions written out; one that returns rows is dropped first, as its columns may change. */
function functions(template: string, metrics: readonly BaseMetricDeclaration[]): string[] {
  const body = expandBaseLists(template.replace(/^--.*\n/gm, ''), metrics).trim();
  return body.split(/\n(?=CREATE OR REPLACE FUNCTION )/).map((definition) => {
    const signature = /^CREATE OR REPLACE FUNCTION (public\.\w+\(.*?\))\n RETURNS (TABLE)?/.exec(definition);
    if (!signature) throw new Error(`${TEMPLATE_FILE}: not a function definition: ${definition.slice(0, 80)}`);
    return signature[2] ? `drop function if exists ${signature[1]};\n${definition.trim()}` : definition.trim();
  });
}

/** sql/lattice/lattice.sql for metrics, from the template and the tables of schema. */
export function latticeSql(
  metrics: readonly BaseMetricDeclaration[] = BASE_METRIC_DECLARATIONS,
  template = readFileSync(TEMPLATE_FILE, 'utf8'),
  schema = readFileSync('sql/schema.sql', 'utf8'),
): string {
  return [
    '-- Written by `npm run sql:lattice` from sql/lattice/template.sql, src/dataModel.ts and src/report/numberRules.ts:',
    '-- edit those.',
    '-- Applied by `migrate` after the numbered migrations whenever it changes; every statement may run again.',
    '',
    '-- A function may name another this file creates after it.',
    'set local check_function_bodies = off;',
    '',
    ...columns(metrics, schema),
    '',
    ...catalogue(metrics),
    '',
    functions(template, metrics).join('\n\n'),
    '',
    numberRulesSql(),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(LATTICE_FILE, latticeSql());
  writeFileSync(OPERATIONS_FILE, formulaOperationsSource());
  console.log(`wrote ${LATTICE_FILE} and ${OPERATIONS_FILE}`);
}
