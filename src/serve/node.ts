// Node adapter: @whatwg-node/server on node:http, with its fast Response class.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter, Response } from '@whatwg-node/server';
import { useResponseClass } from '../respond.ts';
import type { Serve } from './types.ts';

export const serve: Serve = async (app, { port, host }) => {
  useResponseClass(Response as unknown as typeof globalThis.Response);
  const server = createServer(createServerAdapter((request: Request) => app(request)));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
};
