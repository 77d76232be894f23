// Loads /v1/docs in headless Chromium (Debian's package): Redoc renders every path with its curl and response samples,
// its search finds operations, nothing is fetched from another host, and no console error; a screenshot is kept. The
// first paint (a screenshot as soon as the page has loaded) shows what the page is, and no code block scrolls sideways.
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

it('headless Chromium renders the reference: every path, samples, search; no foreign request, no console error', async () => {
  // CI installs chromium (.ci/run); elsewhere the test says why it did not run, and counts as skipped.
  if (
    skipped(
      !existsSync(CHROMIUM),
      'docs in a browser',
      'renders /v1/docs',
      `${CHROMIUM} is not installed (apt-get install chromium)`,
    )
  )
    return;
  const dir = temporaryDir();
  const fresh = onPostgres ? await freshDatabaseUrl() : undefined;
  const server = await startServer(
    fresh ? { DATABASE_URL: fresh.url, DEMO: 'off' } : { DATA_DIR: dir.path, DEMO: 'off' },
  );
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const origin = new URL(server.url).origin;
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      // blob: is the worker Redoc's search runs in, made by the page itself.
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(error.message));
    // The first paint, as soon as the page has loaded: the title and what it is, not a bare spinner.
    // On a slow device Redoc takes a while to render: the CPU is slowed down, as Chromium's developer tools do.
    const first = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await (await first.context().newCDPSession(first)).send('Emulation.setCPUThrottlingRate', { rate: 8 });
    await first.goto(`${server.url}/v1/docs`, { waitUntil: 'domcontentloaded' });
    mkdirSync(OUTPUT, { recursive: true });
    await first.screenshot({ path: join(OUTPUT, 'docs-first-paint.png') });
    const firstText = await first.evaluate(() => document.body.innerText);
    assert.ok(
      firstText.includes('readout'),
      `the first paint names the service: ${JSON.stringify(firstText.slice(0, 200))}`,
    );
    assert.ok(
      firstText.includes('readout API reference') && firstText.includes('/v1/openapi.json'),
      'the first paint says what the page is',
    );
    await first.close();
    const response = await page.goto(`${server.url}/v1/docs`, { waitUntil: 'networkidle' });
    assert.is(response?.status(), 200);
    await page.waitForSelector('[role=menu]', { timeout: 30_000 });
    const text = await page.innerText('body');
    const paths = Object.keys(doc.paths);
    assert.is(paths.filter((p) => p.startsWith('/v1')).length, 16);
    for (const path of paths) assert.ok(text.includes(path), `${path} is on the page`);
    // Each operation: its curl example (naming this server) and its response samples.
    const operations = paths.flatMap((path) => Object.keys(doc.paths[path]));
    assert.is((text.match(/Request samples/g) ?? []).length, operations.length, 'a request sample for every operation');
    assert.is(
      (text.match(/Response samples/g) ?? []).length,
      operations.length,
      'response samples for every operation',
    );
    assert.ok(
      text.includes(`curl -s "${server.url}/v1/reports/$REPORT_ID/data?`),
      'the data example names this server',
    );
    assert.match(text, /Quota cost: one unit per ad account in scope/);
    assert.match(text, /subscription-locked/);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'docs.png') });
    // Rendered, the introduction has made way; no code block scrolls sideways: long lines wrap.
    assert.is(await page.$('#intro'), null, 'the introduction is gone once Redoc has rendered');
    const scrolling = await page.evaluate(() =>
      [...document.querySelectorAll('pre')]
        .filter((pre) => pre.scrollWidth > pre.clientWidth + 1)
        .map((pre) => pre.textContent!.slice(0, 60)),
    );
    assert.equal(scrolling, [], 'every code block wraps');
    assert.ok((await page.evaluate(() => document.querySelectorAll('pre').length)) > 16, 'code blocks were checked');
    // The search box finds operations by their words.
    await page.fill('input[placeholder="Search..."]', 'workbook');
    await page.waitForFunction(
      () => document.querySelector('[data-role="search:results"]')?.textContent?.includes('Excel workbook'),
      null,
      { timeout: 10_000 },
    );
    await page.screenshot({ path: join(OUTPUT, 'docs-search.png') });
    // At 1280 px, a laptop's width, the problem-type table keeps every type's name whole on one line.
    const laptop = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await laptop.goto(`${server.url}/v1/docs#section/Problem-types`, { waitUntil: 'networkidle' });
    await laptop.waitForSelector('table a[href*="/problems/"] code', { timeout: 30_000 });
    const broken = await laptop.evaluate(() =>
      [...document.querySelectorAll('table a[href*="/problems/"] code')]
        .filter((code) => code.getClientRects().length > 1)
        .map((code) => code.textContent),
    );
    assert.equal(broken, [], 'no problem type is broken across lines at 1280 px');
    const overflow = await laptop.evaluate(() =>
      [...document.querySelectorAll('table')].map((table) => table.scrollWidth - table.clientWidth),
    );
    assert.ok(
      overflow.length && overflow.every((px) => px <= 1),
      `every table fits its column: ${overflow.join(', ')} px over`,
    );
    assert.ok(
      (await laptop.evaluate(() => document.querySelectorAll('table a[href*="/problems/"] code').length)) > 10,
      'the table was checked',
    );
    await laptop.screenshot({ path: join(OUTPUT, 'docs-1280.png'), fullPage: false });
    await laptop.close();
    assert.equal(foreign, [], 'no request to another host');
    assert.equal(errors, [], 'no console error');
    assert.ok(existsSync(join(OUTPUT, 'docs.png')));
  } finally {
    await browser.close();
    await server.stop();
    dir.remove();
    await fresh?.drop();
  }
});

it.run();
