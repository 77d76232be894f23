import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
const fakeSql = { unsafe: () => Promise.resolve([{ ok: 1 }]) };
const app = createApp({ sql: fakeSql as never, config: loadConfig({}), log: () => {} });
for (let i = 0; i < 2000; i++) await (await app(new Request('http://x/v1/health'))).arrayBuffer();
const t0 = performance.now();
for (let i = 0; i < 30000; i++) await (await app(new Request('http://x/v1/health'))).arrayBuffer();
console.log('/v1/health', ((performance.now() - t0) / 30000 * 1000).toFixed(1), 'µs each');
