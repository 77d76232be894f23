// Builds every response through the runtime's fastest Response constructor (whatwg-node's on Node).
type ResponseConstructor = typeof Response;

let ResponseClass: ResponseConstructor = globalThis.Response;

/** Called once by the entry file with the adapter's own Response class. */
export function useResponseClass(ctor: ResponseConstructor): void {
  ResponseClass = ctor;
}

/** What a Response made here was given as its body: an adapter that writes answers itself (Node's) reads it here. */
export type GivenBody = { whole: string | Uint8Array | null } | { stream: ReadableStream<Uint8Array> };
const given = new WeakMap<Response, GivenBody>();

/** The body a Response was made with here; undefined for one made elsewhere. */
export function givenBody(response: Response): GivenBody | undefined {
  return given.get(response);
}

export function respond(body: BodyInit | null, init?: ResponseInit): Response {
  const response = new ResponseClass(body, init);
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) given.set(response, { whole: body });
  else if (body instanceof ReadableStream) given.set(response, { stream: body });
  return response;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function json(value: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return jsonText(JSON.stringify(value), init);
}

/** A JSON answer already written out (kept from an earlier request, say, or its bytes from the database). */
export function jsonText(
  body: string | Uint8Array<ArrayBuffer>,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return respond(body, {
    status: init.status ?? 200,
    headers: { 'content-type': JSON_TYPE, ...init.headers },
  });
}
