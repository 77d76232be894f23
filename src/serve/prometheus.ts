// Prometheus metrics, with prom-client, on a port of their own (METRICS_PORT): never on the API's port, so nothing a
// client can reach tells it about other clients' traffic. The app reports what it answered; this file only counts.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What the app tells the metrics about each answer; every label value comes from a fixed set (routes, reasons). */
export type AppCounters = {
  answered(route: string, status: number, seconds: number): void;
  refused(reason: string): void;
  rows(route: string, count: number): void;
  /** Reads the pools' state at each scrape. */
  pools(read: () => { pool: string; inUse: number; waiting: number; size: number }[]): void;
  /** Reads the standbys' state at each scrape (DATABASE_REPLICA_URLS). */
  standbys(read: () => { name: string; usable: boolean; lagMs: number | null }[]): void;
};

/** The registry and what feeds it. */
export function createCounters(): AppCounters & { registry: Registry } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'readout_' });
  const requests = new Counter({
    name: 'readout_http_requests_total',
    help: 'Requests answered, by route and status.',
    labelNames: ['route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'readout_http_request_duration_seconds',
    help: 'Time to the answer’s headers, by route (a streamed body goes on after).',
    labelNames: ['route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'readout_quota_refusals_total',
    help: 'Requests refused by quota, plan or fair use, by reason.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const rows = new Counter({
    name: 'readout_rows_sent_total',
    help: 'Report rows sent in data answers and exports, by route.',
    labelNames: ['route'],
    registers: [registry],
  });
  let readPools: () => { pool: string; inUse: number; waiting: number; size: number }[] = () => [];
  const gauge = (name: string, help: string, field: 'inUse' | 'waiting' | 'size') =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        for (const pool of readPools()) this.set({ pool: pool.pool }, pool[field]);
      },
    });
  gauge('readout_db_pool_connections_in_use', 'Database connections lent out, by pool.', 'inUse');
  gauge('readout_db_pool_waiting', 'Requests waiting for a database connection, by pool.', 'waiting');
  gauge('readout_db_pool_size', 'The most connections a pool opens.', 'size');
  let readStandbys: () => { name: string; usable: boolean; lagMs: number | null }[] = () => [];
  new Gauge({
    name: 'readout_standby_usable',
    help: 'Whether reads may go to the standby (1) or it is skipped: down, not in recovery, or too far behind (0).',
    labelNames: ['standby'],
    registers: [registry],
    collect() {
      for (const s of readStandbys()) this.set({ standby: s.name }, s.usable ? 1 : 0);
    },
  });
  new Gauge({
    name: 'readout_standby_lag_seconds',
    help: "How far the standby's replay is behind the primary, as last measured; absent while it cannot be measured.",
    labelNames: ['standby'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of readStandbys()) if (s.lagMs !== null) this.set({ standby: s.name }, s.lagMs / 1000);
    },
  });
  return {
    registry,
    answered: (route, status, seconds) => {
      requests.inc({ route, status: String(status) });
      latency.observe({ route }, seconds);
    },
    refused: (reason) => refusals.inc({ reason }),
    rows: (route, count) => rows.inc({ route }, count),
    pools: (read) => (readPools = read),
    standbys: (read) => (readStandbys = read),
  };
}

/** GET /metrics on its own port; anything else is 404. */
export async function servePrometheus(
  registry: Registry,
  port: number,
  host: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
      (error) =>
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { address: string; port: number; family: string };
  return {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
