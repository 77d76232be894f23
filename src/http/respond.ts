// Builds every response through the runtime's fastest Response constructor (whatwg-node's on Node).
type ResponseConstructor = typeof Response;

let ResponseClass: ResponseConstructor = globalThis.Response;

/** Called once by the entry file with the adapter's own Response class. */
export function useResponseClass(ctor: ResponseConstructor): void {
  ResponseClass = ctor;
}

export function respond(body: BodyInit | null, init?: ResponseInit): Response {
  return new ResponseClass(body, init);
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
  return new ResponseClass(body, {
    status: init.status ?? 200,
    headers: { 'content-type': JSON_TYPE, ...init.headers },
  });
}
