// `db copy --to` (docs/decisions.md §10): an installation moved whole into an empty database answers every request as
// before, byte for byte, and takes the same client secret; a target that is not empty, or the source itself, is
// refused with nothing written.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type App } from '../src/app.ts';
import { runCommand } from '../src/cli/run.ts';
import { contents, type Installation } from '../src/cli/dbCopy.ts';
import { query } from '../src/store/queries.ts';
import type { Sql } from '../src/store/database.ts';
import { openDatabase } from '../src/store/open.ts';
import { BASE, testApp, type TestApp } from './support/app.ts';
import { freshDatabaseUrl, onPostgres } from './support/database.ts';
import { bearer, getToken } from './support/fixtures.ts';
import { temporaryDir } from './support/server.ts';
import { skipped } from './support/skip.ts';

const it = suite('dbCopy');

const copy = (sql: Sql, installation: Installation, to: string) =>
  runCommand(['db', 'copy', '--to', to, '--json'], { sql, now: Date.now(), progress: () => {}, installation });

/** Every report's data in each grouping it answers, its list, and who the client is: status, ETag and bytes. */
async function answers(fetch: (path: string, init?: RequestInit) => Response | Promise<Response>, token: string) {
  const read = async (path: string) => {
    const res = await fetch(path, bearer(token));
    // The quota a copy carries is what the source had spent, this reading included: the remainder is left out.
    const text = (await res.text()).replace(/"remaining":\d+/, '');
    return `${path} ${res.status} ${res.headers.get('etag')}\n${text}`;
  };
  const out = [await read('/v1/me'), await read('/v1/reports?pageSize=100'), await read('/v1/metrics')];
  const { data } = JSON.parse(out[1].slice(out[1].indexOf('\n') + 1));
  for (const report of data as { id: string; kind: string; groupings: string[] }[]) {
    for (const grouping of report.groupings) {
      const range = report.kind === 'months' ? '' : '&dateFrom=2025-06-01&dateTo=2026-03-09';
      out.push(await read(`/v1/reports/${report.id}/data?groupBy=${grouping}${range}`));
    }
    const range = report.kind === 'months' ? '' : '&dateFrom=2026-01-01&dateTo=2026-01-31';
    const last = report.groupings.at(-1);
    out.push(await read(`/v1/reports/${report.id}/export.csv?groupBy=${last}${range}`));
    if (report.kind !== 'months')
      out.push(await read(`/v1/reports/${report.id}/data?groupBy=campaign&interval=week${range}`));
  }
  return out;
}

/** An app on another database, with the source app's settings and clock. */
const appOn = (sql: Sql, t: TestApp): App =>
  createApp({ sql, config: t.config, clock: () => t.clock.now, log: () => {} });

it('moves an installation whole, and back: every answer the same, the same secret takes a token', async () => {
  const t = await testApp({ demo: true });
  const dir = temporaryDir();
  const opened: { close(): Promise<void> }[] = [];
  try {
    const demo = t.db.demo!;
    const client = { clientId: demo.clientId, clientSecret: demo.clientSecret, secretId: '' };
    const token = await getToken(t, client);
    const before = await answers(t.fetch, token);
    assert.ok(before.length > 20, `${before.length} answers`);
    assert.ok(
      before.every((answer) => / 200 /.test(answer.split('\n')[0])),
      before.find((a) => !/ 200 /.test(a)),
    );

    const source: Installation = onPostgres ? { databaseUrl: t.db.url, dataDir: './data' } : { dataDir: dir.path };
    const embeddedDir = join(dir.path, 'copy');
    const out = await copy(t.db.sql, source, `embedded:${embeddedDir}`);
    assert.is(out.code, 0, out.stderr);
    const copied = JSON.parse(out.stdout);
    assert.is(copied.verified, true);
    assert.ok(copied.tables.facts > 10_000 && copied.tables.organizations === 2, JSON.stringify(copied.tables));
    assert.is(copied.tables.signing_keys, 1, 'the key that signed the token');
    assert.not.ok('schema_migrations' in copied.tables, 'each side migrates itself');

    const hops: { name: string; sql: Sql }[] = [];
    const refusals: [string, RegExp][] = [
      [`embedded:${embeddedDir}`, /already holds a database; db copy writes only into an empty one/],
    ];
    const embedded = await openDatabase({ dataDir: embeddedDir, holder: 'command' });
    opened.push(embedded);
    hops.push({ name: 'embedded copy', sql: embedded.sql });
    // Both sides hold the same, table by table.
    const [first, second] = [await contents(t.db.sql), await contents(embedded.sql)];
    assert.equal(first, second);
    // And from that embedded copy into PostgreSQL: the move an installation makes when it outgrows the embedded one.
    if (!skipped(!onPostgres, 'dbCopy', 'embedded to PostgreSQL', 'needs TEST_DATABASE_URL for an empty database')) {
      const target = await freshDatabaseUrl();
      opened.push({ close: target.drop });
      const back = await copy(embedded.sql, { dataDir: embeddedDir }, target.url);
      assert.is(back.code, 0, back.stderr);
      assert.equal(JSON.parse(back.stdout).tables, copied.tables);
      const moved = await openDatabase({ databaseUrl: target.url, poolMode: 'session', max: 4 });
      opened.unshift(moved);
      hops.push({ name: 'PostgreSQL copy of the embedded copy', sql: moved.sql });
      refusals.push([target.url, /already holds an installation/]);
    }
    for (const hop of hops) {
      const app = appOn(hop.sql, t);
      try {
        const fetch = (path: string, init?: RequestInit) => app(new Request(BASE + path, init));
        const after = await answers(fetch, token);
        for (let i = 0; i < before.length; i++)
          assert.is(after[i], before[i], `${hop.name}: ${before[i].split('\n')[0]}`);
        const res = await fetch('/api/connect/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            ...{ client_id: client.clientId, client_secret: client.clientSecret },
          }).toString(),
        });
        assert.is(res.status, 200, `${hop.name}: the same secret gets a token`);
        const again = (await res.json()).access_token;
        assert.is((await fetch('/v1/me', bearer(again))).status, 200);
      } finally {
        await app.close();
      }
    }
    // Neither copy takes another: a target that holds an installation is refused, exit 2, nothing written.
    for (const [to, line] of refusals) {
      const again = await copy(t.db.sql, source, to);
      assert.is(again.code, 2, `${to}: ${again.stderr}`);
      assert.match(again.stderr, line);
    }
    // The digest sees one changed number.
    await embedded.sql`update facts set clicks = clicks + 1 where ctid = (select min(ctid) from facts)`;
    assert.not.equal((await contents(embedded.sql)).get('facts'), first.get('facts'));
  } finally {
    for (const db of opened) await db.close();
    dir.remove();
    await t.close();
  }
});

it("refuses another program's tables, the source itself, and a --to it cannot read, writing nothing", async () => {
  const t = await testApp();
  const dir = temporaryDir();
  try {
    const source: Installation = onPostgres ? { databaseUrl: t.db.url, dataDir: './data' } : { dataDir: dir.path };
    const refused = async (to: string, line: RegExp) => {
      const out = await copy(t.db.sql, source, to);
      assert.is(out.code, 2, `${to}: ${out.stderr}`);
      assert.match(out.stderr, line);
      assert.is(out.stdout, '');
    };
    await refused('mysql://x', /^readout: --to: "mysql:\/\/x" is neither a postgres:\/\/ URL nor embedded:DIR/);
    if (onPostgres) {
      const secret = new URL(t.db.url);
      secret.password = 'hunter2';
      await refused(secret.href, /is the database this command runs against/);
      assert.not.match((await copy(t.db.sql, source, secret.href)).stderr, /hunter2/);
    } else await refused(`embedded:${dir.path}`, /is the database this command runs against/);
    if (onPostgres) {
      // A PostgreSQL database holding someone else's tables (one holding an installation: the test above).
      const other = await freshDatabaseUrl();
      const admin = await openDatabase({ databaseUrl: other.url, poolMode: 'session', max: 1 });
      try {
        await admin.sql`create table invoices (id int)`;
        await refused(other.url, /holds 1 tables that are not readout's; use an empty database/);
        const [{ n }] = await admin.sql`select count(*)::int as n from pg_class where relname = 'organizations'`;
        assert.is(n, 0, 'nothing was written');
      } finally {
        await admin.close();
        await other.drop();
      }
    }
    assert.not.ok(existsSync(join(dir.path, 'never')));
    // The digest reads every table a copy carries.
    const tables = (await query(t.db.sql, 'list-copied-tables')).map((table) => table.name);
    assert.equal([...(await contents(t.db.sql)).keys()].sort(), tables.sort());
  } finally {
    dir.remove();
    await t.close();
  }
});

it.run();
