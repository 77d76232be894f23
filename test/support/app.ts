// Builds the app on a fresh database with a hand-moved clock and captured log lines.
import { createApp, type App, type AppDeps, type LogLine } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { freshDatabase, type TestDatabase } from './database.ts';

export const BASE = 'http://readout.test';

export type TestApp = {
  db: TestDatabase;
  config: Config;
  logs: LogLine[];
  clock: { now: number; advance(ms: number): void };
  fetch(path: string, init?: RequestInit): Promise<Response>;
  app: App;
  close(): Promise<void>;
};

/** env: the service's settings; max: the database pool's size; demo: the demo organization seeded (seedDemo). */
export async function testApp(
  overrides: Partial<AppDeps> & { env?: Record<string, string>; max?: number; demo?: boolean } = {},
): Promise<TestApp> {
  const clock = {
    now: Date.parse('2026-03-10T10:15:00Z'),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const db = await freshDatabase({ max: overrides.max, demoAt: overrides.demo ? clock.now : undefined });
  const config = loadConfig({ BASE_URL: BASE, ...overrides.env });
  const logs: LogLine[] = [];
  const app = createApp({ sql: db.sql, config, clock: () => clock.now, log: (line) => logs.push(line), ...overrides });
  return {
    db,
    config,
    logs,
    clock,
    fetch: async (path, init) => app(new Request(BASE + path, init)),
    app,
    close: async () => {
      await app.close();
      await db.close();
    },
  };
}
