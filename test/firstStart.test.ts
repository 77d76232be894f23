// A first start on an empty DATA_DIR: the folder is prepared (initdb, migrations, the demo) by a second run of the
// server's entry, so the server idles as after a restart (docs/operations.md); it still logs the migrations, prints
// the demo's client, and serves it. A restart prepares nothing again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { startServer, temporaryDir, tokenFrom } from './support/server.ts';

const it = suite('first start');

it('an empty DATA_DIR is prepared apart: migrations logged, the demo printed and served, shared_buffers 16 MB', async () => {
  const dir = temporaryDir();
  try {
    const first = await startServer({ DATA_DIR: dir.path, DEMO: 'on', BASE_URL: 'http://readout.test' });
    let output = '';
    try {
      output = first.output();
      assert.is((output.match(/"msg":"migrations applied"/g) ?? []).length, 1, 'the migrations are logged once');
      const clientId = /client id\s+(rdc_\S+)/.exec(output)?.[1];
      const clientSecret = /client secret\s+(rds_\S+)/.exec(output)?.[1];
      assert.ok(clientId && clientSecret, `the demo's client is printed: ${output.slice(0, 400)}`);
      const token = await tokenFrom(first, { clientId: clientId!, clientSecret: clientSecret! });
      const reports = await fetch(`${first.url}/v1/reports`, { headers: { authorization: `Bearer ${token}` } });
      assert.is(reports.status, 200);
      assert.ok(((await reports.json()).data as unknown[]).length >= 5, "the demo's reports are served");
      // The settings PGlite runs with, read through the server's own socket.
      const { path } = JSON.parse(readFileSync(join(dir.path, 'readout-socket.json'), 'utf8'));
      const sql = postgres({ path, user: 'postgres', database: 'postgres', max: 1, onnotice: () => {} });
      try {
        const [{ shared_buffers }] = await sql`show shared_buffers`;
        assert.is(shared_buffers, '16MB');
      } finally {
        await sql.end({ timeout: 1 });
      }
    } finally {
      assert.is(await first.stop(), 0);
    }
    const again = await startServer({ DATA_DIR: dir.path, DEMO: 'on', BASE_URL: 'http://readout.test' });
    try {
      assert.not.match(again.output(), /migrations applied|demo organization was created/);
    } finally {
      await again.stop();
    }
  } finally {
    dir.remove();
  }
});

it.run();
