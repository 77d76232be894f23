// A loopback TCP proxy in front of the database that a test can cut (drop) or freeze (stall), like PostgREST's tests.
import { createServer, connect, type Socket } from 'node:net';

export type Mode = 'pass' | 'drop' | 'stall';

export type Proxy = { url: string; set(mode: Mode): void; close(): Promise<void> };

export async function tcpProxy(targetUrl: string): Promise<Proxy> {
  const target = new URL(targetUrl);
  let mode: Mode = 'pass';
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    if (mode === 'drop') return void client.destroy();
    const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const forget = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => mode === 'pass' && upstream.write(chunk));
    upstream.on('data', (chunk) => mode === 'pass' && client.write(chunk));
    client.on('error', forget).on('close', forget);
    upstream.on('error', forget).on('close', forget);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    set(next) {
      mode = next;
      // Dropping cuts every open connection too; stalling keeps them open and silent.
      if (next === 'drop') for (const [a, b] of pairs) a.destroy(), b.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const [a, b] of pairs) a.destroy(), b.destroy();
        server.close(() => resolve());
      }),
  };
}
