// Bun adapter: Bun.serve with the same Fetch handler.
import http from 'node:http';
import { REQUEST_HEAD_LIMIT, refusingOversized } from './limits.ts';
import type { Serve, Tls } from './types.ts';

declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    tls?: Tls;
    fetch: (request: Request) => Response | Promise<Response>;
  }): {
    url: URL;
    stop(closeActiveConnections?: boolean): Promise<void>;
  };
};

export const serve: Serve = async (app, { port, host, tls, refuse }) => {
  // Bun's parser answers a bare 431 past 16 KB, before any handler runs: its limit (what --max-http-header-size sets)
  // goes up to four times ours, so the request reaches refusingOversized and gets the 400 of docs/decisions.md §8. More
  // than 100 headers Bun still refuses itself.
  (http as unknown as { maxHeaderSize: number }).maxHeaderSize = 4 * REQUEST_HEAD_LIMIT;
  const server = Bun.serve({ port, hostname: host, fetch: refusingOversized(app, refuse), ...(tls ? { tls } : {}) });
  return { url: server.url.origin, close: () => server.stop(false) };
};
