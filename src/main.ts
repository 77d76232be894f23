// Entry point: configuration, database, migrations, the app, and the runtime's server; graceful on SIGTERM/SIGINT.
import process from 'node:process';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { openDatabase } from './database.ts';
import { migrate } from './migrate.ts';
import type { Serve } from './serve/types.ts';

function runtimeAdapter(): Promise<{ serve: Serve }> {
  if ('Bun' in globalThis) return import('./serve/bun.ts');
  if ('Deno' in globalThis) return import('./serve/deno.ts');
  return import('./serve/node.ts');
}

const note = (msg: string, fields: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ time: new Date().toISOString(), msg, ...fields }));

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`readout: ${error.message}\n`);
  process.exit(2);
}

const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
const applied = await migrate(database.sql);
if (applied.length) note('migrations applied', { applied });

const app = createApp({ sql: database.sql, config });
const { serve } = await runtimeAdapter();
const server = await serve(app, { port: config.port, host: config.host });
note('listening', { url: server.url, baseUrl: config.baseUrl, database: database.description });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  note('shutting down', { signal });
  await server.close();
  await database.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
