// Node adapter: node:http. A request without a body is answered from a bare request object, and the pipeline's answer
// (http/answer.ts) written in one go; the rest go through @whatwg-node/server, with its Response class.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { setImmediate } from 'node:timers';
import { defaultMaxConnections, limitConnections, openFileLimit } from './connections.ts';
import { createServerAdapter, Response, sendNodeResponse } from '@whatwg-node/server';
import { Answer, toResponse } from '../http/answer.ts';
import type { ConnectionSettings, DirectAnswer, IncomingRequest, Malformed, Serve } from './types.ts';

/**
 * A request header from the raw list, without building req.headers (an object of every header) for it; repeated, its
 * values are joined as the Fetch API's Headers.get joins them, so the pipeline would see the same value.
 */
function rawHeader(raw: string[], lowerName: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length === lowerName.length && raw[i].toLowerCase() === lowerName)
      value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
  }
  return value;
}

/**
 * Headers read from the raw list when asked. A class, not an object literal with an arrow function: under tsx
 * (esbuild's keepNames) every named closure made per request is also given its name by a defineProperty call.
 */
class RawHeaders {
  readonly raw: string[];
  constructor(raw: string[]) {
    this.raw = raw;
  }
  get(name: string): string | null {
    return rawHeader(this.raw, name.toLowerCase()) ?? null;
  }
}

/**
 * A request without a body (GET, HEAD: every /v1 request) as the app reads it: no Fetch Request, no header object,
 * headers looked up in the raw list when asked (BENCHMARKS.md, "What makes it fast").
 * The origin is fixed: the app reads the path and query only, so a strange Host header cannot matter. A target in
 * absolute form (RFC 9112 §3.2.2: a server must accept it) keeps its own path and query.
 */
class BodilessRequest implements IncomingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: RawHeaders;
  readonly body = null;
  private readonly res: ServerResponse;
  constructor(req: IncomingMessage, res: ServerResponse) {
    const target = req.url ?? '/';
    this.method = req.method!;
    this.url = target.startsWith('/') || !URL.canParse(target) ? `http://localhost${target}` : target;
    this.headers = new RawHeaders(req.rawHeaders);
    this.res = res;
  }
  /** Cuts the transfer: an answer that failed midway must not look whole (streamed.ts). */
  cut(): void {
    this.res.destroy();
  }
}

/**
 * A streamed body (an export), relayed for whatwg-node's writer. A client that goes away cancels the source, which
 * stops its query; a source that fails midway cuts the connection instead of ending the response, so a partial file
 * is never taken for a whole one (whatwg-node would turn the error into a stream 'error' nobody listens to, which
 * ends the process).
 */
function guardStream(body: ReadableStream<Uint8Array>, res: ServerResponse): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const gone = () => {
    if (!res.writableFinished) reader.cancel().catch(() => {});
  };
  // A client that went away while the answer was being prepared closed the response before this was listening: its
  // 'close' has been and gone, and the source would hold its connection and the client's place until the deadline.
  if (res.destroyed || res.socket === null || res.socket.destroyed) gone();
  else res.once('close', gone);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch {
        res.destroy();
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** An answer written whole at the end of the turn (writeWhole). */
type Whole = { res: ServerResponse; status: number; headers: string[]; body: string | Uint8Array | undefined };
let waiting: Whole[] = [];
let flushScheduled = false;

function flushWhole(): void {
  const answers = waiting;
  waiting = [];
  flushScheduled = false;
  for (const { res, status, headers, body } of answers) {
    try {
      res.writeHead(status, headers);
      res.end(body);
    } catch {
      res.destroy();
    }
  }
}

/**
 * A whole answer in one writeHead and one end, once the event loop has run what its poll phase read: the answers of
 * one turn go out together, and a client reading many connections wakes once for them rather than once each, as
 * uWebSockets (Bun's server) corks its answers per turn.
 */
function writeWhole(res: ServerResponse, status: number, headers: string[], body: string | Uint8Array | undefined) {
  waiting.push({ res, status, headers, body });
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushWhole);
  }
}

/** A text or empty answer written whole (writeWhole); a stream through whatwg-node's writer. */
function send(answer: Answer, req: IncomingMessage, res: ServerResponse): void {
  const { body } = answer;
  if (body instanceof ReadableStream) {
    const streamed = toResponse(
      new Answer(guardStream(body, res), answer),
      Response as unknown as typeof globalThis.Response,
    );
    void sendNodeResponse(streamed, res, req, false);
    return;
  }
  writeWhole(res, answer.status, withLength(answer), body ?? undefined);
}

/** A direct answer's headers are a flat list of names and values: node:http takes it as is, with no object to walk. */
function writeAnswer(res: ServerResponse, answer: DirectAnswer): void {
  writeWhole(res, answer.status, answer.headers as string[], answer.body);
}

function answerBodiless(answerOf: AnswerOf, req: IncomingMessage, res: ServerResponse): void {
  let answer: Answer | Promise<Answer>;
  try {
    answer = answerOf(new BodilessRequest(req, res));
  } catch {
    return void failedHandler(res);
  }
  // An answer the pipeline gave at once is written in this turn (writeWhole), like every other of it.
  if (!(answer instanceof Promise)) return void send(answer, req, res);
  answer.then(
    (response) => send(response, req, res),
    () => failedHandler(res),
  );
}

/** The handler answers every error itself; this is for a failure of its own, which must not end the process. */
function failedHandler(res: ServerResponse): void {
  if (res.headersSent) res.destroy();
  else res.writeHead(500, ['content-length', '0']).end();
}

/** The method and path of a request line, as far as the bytes the parser refused hold one. */
function requestLine(raw: Buffer | undefined): { method: string; path: string } {
  const line = /^([!-~]{1,32}) (\/[!-~]*) HTTP\/1\.[01]\r?\n/.exec(raw?.subarray(0, 2048).toString('latin1') ?? '');
  return line ? { method: line[1], path: line[2].split('?')[0] } : { method: '', path: '' };
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed' };

/** What overflowed the parser (16 KB): the request line, when its end is not within the limit, else the headers. */
function tooLarge(raw: Buffer | undefined): Malformed {
  const end = raw?.indexOf('\n') ?? -1;
  return end >= 0 && end < 16 * 1024 ? 'headers-too-large' : 'url-too-long';
}

/** How long, and how much, the rest of a body refused unread is read after its answer before the connection is cut. */
const DRAIN_MS = 5000;
const DRAIN_BYTES = 128 * 1024 * 1024;
/** A client that sends nothing for this long has stopped: the connection is closed, gently. */
const DRAIN_IDLE_MS = 500;

/**
 * An answer that refuses a body it has not read asks for the connection to be closed (routes/token.ts). node:http
 * would close it as soon as the answer is written, while the client is still sending: the unread bytes turn the close
 * into a reset, which throws away the answer before the client reads it (RFC 9112 §9.6). Instead, as nginx's lingering
 * close does, the rest is read and dropped until the client stops sending, then the connection is closed; past
 * DRAIN_MS or DRAIN_BYTES it is cut.
 */
function drainRefused(response: Answer, req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || response.headers.get('connection') !== 'close') return;
  response.headers.delete('connection');
  res.once('finish', () => {
    const socket = req.socket;
    let read = 0;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const close = (gently: boolean) => {
      clearTimeout(idle);
      clearTimeout(limit);
      if (gently) socket.end();
      else socket.destroy();
    };
    const limit = setTimeout(() => close(false), DRAIN_MS);
    const waitIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => close(true), DRAIN_IDLE_MS);
    };
    req.on('data', (chunk: Buffer) => {
      read += chunk.byteLength;
      if (read > DRAIN_BYTES) close(false);
      else waitIdle();
    });
    req.once('end', () => close(true));
    socket.once('close', () => close(false));
    waitIdle();
    req.resume();
  });
}

/** node:http's own, but for the keep-alive, which outlasts a load balancer's 60 s idle timeout. */
const CONNECTIONS: ConnectionSettings = { headersTimeoutMs: 10_000, keepAliveTimeoutMs: 65_000 };

export const serve: Serve = async (app, { port, host, direct, refuse, tls, connections = CONNECTIONS }) => {
  // The pipeline's own answers, written here.
  const answerOf: AnswerOf = app.answer;
  // Requests with a body (the token endpoint's POST, and anything else that is not GET or HEAD) take whatwg-node's way.
  const adapter = createServerAdapter<{ req: IncomingMessage; res: ServerResponse }>(async (request, { req, res }) => {
    const answer = await answerOf(request);
    drainRefused(answer, req, res);
    withLength(answer);
    return toResponse(answer, Response as unknown as typeof globalThis.Response);
  });
  // A liveness probe answered here skips building a Request and a Response; every other request takes the pipeline.
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const answer = direct?.(req.method ?? '', req.url ?? '', (name) => rawHeader(req.rawHeaders, name));
    if (answer) return writeAnswer(res, answer);
    return req.method === 'GET' || req.method === 'HEAD' ? answerBodiless(answerOf, req, res) : adapter(req, res);
  };
  // Slow headers are looked for each second rather than node:http's 30 (connectionsCheckingInterval).
  const server = tls
    ? createSecureServer(
        {
          cert: tls.cert,
          key: tls.key,
          handshakeTimeout: connections.headersTimeoutMs,
          connectionsCheckingInterval: 1000,
        },
        handle,
      )
    : createServer({ connectionsCheckingInterval: 1000 }, handle);
  // A handshake that fails (plain HTTP on the TLS port, a client refusing our certificate) is that client's affair.
  server.on('tlsClientError', (_error: Error, socket: Socket) => socket.destroy());
  limitConnections(
    server,
    { ...connections, maxConnections: connections.maxConnections ?? defaultMaxConnections(openFileLimit()) },
    tls ? 'secureConnection' : 'connection',
  );
  // What node:http cannot parse gets a problem document (or nothing, where the connection is already gone) instead of
  // its bare 400 or 431, and the connection is closed: after a broken request nothing more on it can be trusted.
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket) => {
    if (!refuse || !socket.writable || error.code === 'ECONNRESET' || error.code === 'HPE_CLOSED_CONNECTION')
      return void socket.destroy();
    const { method, path } = requestLine(error.rawPacket);
    // A method the parser does not know, on a request line that is otherwise one: anything else is just broken.
    const why =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? tooLarge(error.rawPacket)
        : error.code === 'HPE_INVALID_METHOD' && path
          ? 'unknown-method'
          : 'broken';
    const answer = refuse(why, method, path);
    if (!answer) return void socket.destroy();
    const headers: string[] = [];
    for (let i = 0; i < answer.headers.length; i += 2)
      headers.push(`${answer.headers[i]}: ${answer.headers[i + 1]}\r\n`);
    const statusLine = `HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? 'Error'}\r\n`;
    socket.end(`${statusLine}${headers.join('')}connection: close\r\n\r\n${answer.body}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://${hostOf(address.address, address.family === 'IPv6')}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
};

/** A listening address as a URL's host: an IPv6 address in brackets (RFC 3986 §3.2.2). */
export function hostOf(address: string, ipv6 = address.includes(':')): string {
  return ipv6 ? `[${address}]` : address;
}

type AnswerOf = (request: IncomingRequest) => Answer | Promise<Answer>;

/** The answer's headers, with a whole body's length so node:http need not chunk it (RFC 9112 §6.3). */
function withLength(answer: Answer): string[] {
  const { body, headers } = answer;
  if (body === null || body instanceof ReadableStream || headers.has('content-length')) return headers.list;
  headers.set('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
  return headers.list;
}
