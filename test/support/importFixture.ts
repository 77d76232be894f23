// A small, exactly known data set loaded through the import command: an EUR and a USD account over three days.
import { runCommand } from '../../src/cli/run.ts';
import { IMPORT_COLUMNS } from '../../src/cli/importFile.ts';
import type { Sql } from '../../src/store/database.ts';
import type { TestApp } from './app.ts';
import { onPostgres } from './database.ts';

export const HEADER = IMPORT_COLUMNS.join(',');

export const FIXTURE_CSV = [
  HEADER,
  '2026-01-05,meta-ads,M1,Meta EU,EUR,C1,"Alpha, ""the"" first",K1,Alpha video,video,1000,50,100,5,200,400,100',
  '2026-01-06,meta-ads,M1,Meta EU,EUR,C1,"Alpha, ""the"" first",K1,Alpha video,video,1000,50,100,5,200,400,100',
  '2026-01-07,meta-ads,M1,Meta EU,EUR,C1,"Alpha, ""the"" first",K1,Alpha video,video,1000,50,100,5,200,400,100',
  '2026-01-05,google-ads,G1,Google US,USD,C2,Beta search,K2,Beta text,text,3000,30,60,0,0,0,0',
  '2026-01-06,google-ads,G1,Google US,USD,C3,Gamma search,K3,Gamma image,image,500,0,0,0,0,0,0',
  '2026-02-10,google-ads,G1,Google US,USD,C2,Beta search,K2,Beta text,text,1000,10,20,2,50,0,0',
].join('\n');

export async function importCsv(t: TestApp, org: string, csv: string) {
  return importInto(t.db.sql, org, csv, t.clock.now);
}

/** `readout import` of csv into org, on a database with no app around it. */
export async function importInto(sql: Sql, org: string, csv: string, now = Date.now()) {
  return runCommand(['import', '--org', org, '--file', 'fixture.csv', '--json'], {
    sql,
    now,
    progress: () => {},
    readStream: async function* () {
      yield new TextEncoder().encode(csv);
    },
    copy: onPostgres,
  });
}

/**
 * Today's `readout import` of csv into org on a database migrated only part of the way (a test of a later migration
 * over facts loaded before it): the columns of migration 047 that today's import reads and writes are lent for the
 * import, and taken away again, so that the migrations still to come find the schema they were written against.
 */
export async function importBefore(sql: Sql, org: string, csv: string) {
  await sql`alter table custom_metrics add column slot smallint, add column whole boolean`;
  await sql`alter table facts add column declared double precision[]`;
  try {
    return await importInto(sql, org, csv);
  } finally {
    await sql`alter table custom_metrics drop column slot, drop column whole`;
    await sql`alter table facts drop column declared`;
  }
}

/** Imports the fixture, sets EUR rates (none on 2026-01-06) and makes a USD report over both accounts. */
export async function fixtureReport(t: TestApp, org: string, options: { metrics?: string[]; kind?: string } = {}) {
  const out = await importCsv(t, org, FIXTURE_CSV);
  if (out.code !== 0) throw new Error(out.stderr);
  const sql = t.db.sql;
  await sql`insert into fx_rates (currency, day, usd_per_unit) values ('EUR', '2026-01-05', 1.1), ('EUR', '2026-01-07', 1.2) on conflict do nothing`;
  const accounts = await sql`select id, platform from ad_accounts where organization_id = ${org} order by platform`;
  const metrics = options.metrics ?? ['impressions', 'clicks', 'spend', 'conversions', 'cpa', 'ctr', 'video_views'];
  const [report] = await sql`insert into reports (organization_id, name, kind, currency, metrics, groupings)
    values (${org}, 'Fixture', ${options.kind ?? 'standard'}, 'USD', ${metrics}, ${['total', 'campaign', 'month', 'ad-account', 'video', 'creative']}) returning id`;
  for (const account of accounts) {
    await sql`insert into report_ad_accounts (organization_id, report_id, ad_account_id) values (${org}, ${report.id}, ${account.id})`;
  }
  return {
    report: report.id as string,
    google: accounts.find((a) => a.platform === 'google-ads')!.id as string,
    meta: accounts.find((a) => a.platform === 'meta-ads')!.id as string,
  };
}
