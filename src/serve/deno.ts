// Deno adapter: Deno.serve with the same Fetch handler.
import { refusingOversized } from './limits.ts';
import type { Serve } from './types.ts';

declare const Deno: {
  serve(
    options: {
      port: number;
      hostname: string;
      cert?: string;
      key?: string;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: (request: Request) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void> };
};

export const serve: Serve = async (app, { port, host, tls, refuse }) => {
  let url = '';
  const listening = new Promise<void>((resolve) => {
    const server = Deno.serve(
      {
        port,
        hostname: host,
        ...(tls ?? {}),
        onListen: (addr) => {
          const host = addr.hostname.includes(':') ? `[${addr.hostname}]` : addr.hostname;
          url = `${tls ? 'https' : 'http'}://${host}:${addr.port}`;
          resolve();
        },
      },
      refusingOversized(app, refuse),
    );
    close = () => server.shutdown();
  });
  let close: () => Promise<void> = async () => {};
  await listening;
  return { url, close: () => close() };
};
