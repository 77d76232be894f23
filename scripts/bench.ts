// npm run bench [-- --scale 0.1] [--duration 10] [--rounds 5] [--only PART,PART] [--targets]: builds the data set,
// starts the server, drives it with autocannon (and downloads the exports with curl) from another core, measures the
// floors in the same run, and prints a Markdown table with every target met or missed. A part is a file of
// scripts/bench/ (http, data, periods, currencies, dashboards, exports, fair, replicas, footprint, import, growth)
// that declares its targets in a table of its own; --targets prints them all. BENCH_KEEP_LOGS=1 keeps the servers'
// output; BENCH_START replaces package.json's start command (to add a flag such as --trace-gc).
import { postgresBin } from './postgresServers.ts';
import { TARGETS as currencyTargets, currenciesPart } from './bench/currencies.ts';
import { TARGETS as dashboardTargets, dashboardsPart } from './bench/dashboards.ts';
import { TARGETS as dataTargets, dataPart, NAIVE_BOUNDS } from './bench/data.ts';
import { TARGETS as declaredTargets, declaredPart } from './bench/declared.ts';
import { TARGETS as exportTargets, exportsPart } from './bench/exports.ts';
import { TARGETS as fairTargets, fairPart } from './bench/fair.ts';
import { TARGETS as footprintTargets, footprintPart } from './bench/footprint.ts';
import { TARGETS as growthTargets, growthPart, importGrowth } from './bench/growth.ts';
import {
  declaredTable,
  embedded,
  f,
  keepAnyway,
  listTargets,
  log,
  logs,
  machine,
  noResult,
  only,
  runs,
  scale,
  tableHead,
  targetTable,
  type Met,
  type PartResult,
} from './bench/harness.ts';
import { TARGETS as httpTargets, httpPart } from './bench/http.ts';
import { TARGETS as importTargets, importPart } from './bench/import.ts';
import { loads } from './bench/measure.ts';
import { TARGETS as periodTargets, periodsPart } from './bench/periods.ts';
import { TARGETS as replicaTargets, replicasPart } from './bench/replicas.ts';
import { setUp } from './bench/setup.ts';

if (listTargets) {
  const declared = declaredTable({
    http: httpTargets,
    data: { ...dataTargets, ...NAIVE_BOUNDS },
    periods: periodTargets,
    currencies: currencyTargets,
    dashboards: dashboardTargets,
    declared: declaredTargets,
    exports: exportTargets,
    fair: fairTargets,
    replicas: replicaTargets,
    footprint: footprintTargets,
    import: importTargets,
    growth: growthTargets,
  });
  console.log(declared.join('\n'));
  logs.keep = false;
  process.exit(0);
}

/** The replicas part needs PostgreSQL's server binaries, which make the primary and the standby it measures. */
const replicasSkipped = () =>
  runs('replicas') && !postgresBin()
    ? (log("replicas: skipped, needs PostgreSQL's server binaries (Debian's postgresql package)"), true)
    : false;

/** A part run alone, on a server or database of its own: its table, and the exit code its targets give. */
function alone(database: string, part: { rows: string[]; targets: Met[] }): never {
  console.log([machine(database), '', ...tableHead, ...part.rows, ...targetTable(part.targets)].join('\n'));
  logs.keep = keepAnyway;
  process.exit(part.targets.every(([, , met]) => met) ? 0 : 1);
}
if (only === 'footprint') alone('embedded PGlite', await footprintPart());
if (only === 'import') alone(embedded ? 'embedded PGlite' : 'PostgreSQL', await importPart());
if (only === 'replicas') {
  if (replicasSkipped()) {
    logs.keep = keepAnyway;
    process.exit(0);
  }
  alone('PostgreSQL primary and standby made here, sharing its cores', await replicasPart());
}

const setup = await setUp();
try {
  const results: PartResult[] = [];
  if (runs('http')) results.push(await httpPart(setup));
  if (runs('data')) results.push(await dataPart(setup));
  if (runs('growth'))
    results.push({ ...noResult(), after: [...(await growthPart(setup)), ...(await importGrowth(scale))] });
  if (runs('periods')) results.push(await periodsPart(setup));
  if (setup.converted && runs('currencies')) results.push(await currenciesPart(setup));
  if (setup.converted && runs('dashboards')) results.push(await dashboardsPart(setup));
  if (runs('declared')) results.push(await declaredPart(setup));
  if (runs('exports')) results.push(await exportsPart(setup));
  if (runs('fair')) results.push(await fairPart(setup));
  if (runs('import')) {
    const part = await importPart();
    results.push({ ...noResult(), after: part.rows, targets: part.targets });
  }
  if (runs('replicas') && !replicasSkipped()) {
    const part = await replicasPart();
    results.push({ ...noResult(), after: part.rows, targets: part.targets });
  }
  const targets = results.flatMap((r) => r.targets);
  const errors = loads.reduce((n, r) => n + r.errors + r.unexpected, 0);
  logs.keep = errors > 0 || keepAnyway;
  if (loads.length > 0) targets.push(['no errors under load', `${errors} errors`, errors === 0]);

  const out: string[] = [machine(embedded ? 'embedded PGlite' : 'PostgreSQL'), '', ...tableHead];
  for (const [name, r] of results.flatMap((result) => result.rows))
    out.push(`| ${name} | ${f(r.rps)} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | ${r.peakRss ? f(r.peakRss) : ''} |`);
  out.push(...results.flatMap((r) => r.after));
  out.push(`| idle server | | | | ${f(setup.idleRss)} |`);
  out.push(...targetTable(targets));
  console.log(out.join('\n'));
  process.exitCode = targets.every(([, , met]) => met) ? 0 : 1;
} finally {
  await setup.close();
}
