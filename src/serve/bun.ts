// Bun adapter: Bun.serve with the same Fetch handler.
import type { Serve, Tls } from './types.ts';

declare const Bun: {
  serve(options: { port: number; hostname: string; tls?: Tls; fetch: (request: Request) => Promise<Response> }): {
    url: URL;
    stop(closeActiveConnections?: boolean): Promise<void>;
  };
};

export const serve: Serve = async (app, { port, host, tls }) => {
  const server = Bun.serve({ port, hostname: host, fetch: app, ...(tls ? { tls } : {}) });
  return { url: server.url.origin, close: () => server.stop(false) };
};
