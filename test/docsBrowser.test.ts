// Loads /v1/docs in headless Chromium (Debian's package): every path shown, nothing fetched elsewhere, no console error.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { freshDatabaseUrl, onPostgres } from './support/database.ts';
import { startServer, temporaryDir } from './support/server.ts';
import { doc } from './support/contract.ts';
import { skipped } from './support/skip.ts';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = join(process.cwd(), '.test-output');
const it = suite('docs in a browser');

it('headless Chromium renders /v1/docs with all sixteen paths, no foreign request, no console error', async () => {
  // CI installs chromium (.ci/run); elsewhere the test says why it did not run, and counts as skipped.
  if (skipped(!existsSync(CHROMIUM), 'docs in a browser', 'renders /v1/docs', `${CHROMIUM} is not installed (apt-get install chromium)`)) return;
  const dir = temporaryDir();
  const fresh = onPostgres ? await freshDatabaseUrl() : undefined;
  const server = await startServer(fresh ? { DATABASE_URL: fresh.url, DEMO: 'off' } : { DATA_DIR: dir.path, DEMO: 'off' });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const origin = new URL(server.url).origin;
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:')) foreign.push(url);
    });
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${server.url}/v1/docs`, { waitUntil: 'networkidle' });
    assert.is(response?.status(), 200);
    const text = await page.innerText('body');
    const v1Paths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1'));
    assert.is(v1Paths.length, 16);
    for (const path of v1Paths) assert.ok(text.includes(path), `${path} is on the page`);
    assert.equal(foreign, [], 'no request to another host');
    assert.equal(errors, [], 'no console error');
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'docs.png'), fullPage: false });
    assert.ok(existsSync(join(OUTPUT, 'docs.png')));
  } finally {
    await browser.close();
    await server.stop();
    dir.remove();
    await fresh?.drop();
  }
});

it.run();
