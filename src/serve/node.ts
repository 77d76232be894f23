// Node adapter: @whatwg-node/server on node:http, with its fast Response class.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter, Response } from '@whatwg-node/server';
import { useResponseClass } from '../respond.ts';
import type { Serve } from './types.ts';

/**
 * A streamed attachment (an export) that fails midway must reach the client as a cut connection, so a partial file
 * is never taken for a whole one. whatwg-node turns an errored body into a Node stream 'error' nobody listens to,
 * which ends the process; so the body is relayed here, and a failure destroys the socket instead.
 */
function guardStream(response: globalThis.Response, res: ServerResponse | undefined): globalThis.Response {
  if (!response.body || !response.headers.has('content-disposition')) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch {
        res?.destroy();
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers }) as unknown as globalThis.Response;
}

/**
 * A request header from the raw list, without building req.headers (an object of every header) for it; repeated, its
 * values are joined as the Fetch API's Headers.get joins them, so the pipeline would see the same value.
 */
function rawHeader(raw: string[], lowerName: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === lowerName.length && raw[i].toLowerCase() === lowerName) value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
  }
  return value;
}

export const serve: Serve = async (app, { port, host, direct }) => {
  useResponseClass(Response as unknown as typeof globalThis.Response);
  const adapter = createServerAdapter(async (request: Request, context: unknown) =>
    guardStream(await app(request), (context as { res?: ServerResponse } | undefined)?.res),
  );
  // A liveness probe is the cheapest request there is; answered here it skips building a Request and a Response.
  const server = createServer((req, res) => {
    const answer = direct?.(req.method ?? '', req.url ?? '', rawHeader(req.rawHeaders, 'traceparent'));
    if (!answer) return adapter(req, res);
    // A flat list of names and values: node:http takes it as is, with no object to walk.
    const headers: string[] = ['content-length', String(Buffer.byteLength(answer.body))];
    for (const name in answer.headers) headers.push(name, answer.headers[name]);
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  });
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
