// Builds every answer the pipeline gives (answer.ts): JSON, text, bytes, a stream, or nothing.
import { Answer, AnswerHeaders, type AnswerBody, type AnswerInit } from './answer.ts';

export { Answer };

export function respond(body: AnswerBody, init?: AnswerInit): Answer {
  return new Answer(body, init);
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function json(value: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Answer {
  return jsonText(JSON.stringify(value), init);
}

const NO_INIT: { status?: number; headers?: Record<string, string> } = Object.freeze({});

/**
 * A JSON answer already written out (kept from an earlier request, say, or its bytes from the database). Its headers
 * go straight into the answer's list: no object spread for every cheap request.
 */
export function jsonText(
  body: string | Uint8Array<ArrayBuffer>,
  init: { status?: number; headers?: Record<string, string> } = NO_INIT,
): Answer {
  const headers = new AnswerHeaders();
  headers.set('content-type', JSON_TYPE);
  for (const name in init.headers) headers.set(name, init.headers[name]);
  return new Answer(body, { status: init.status ?? 200, headers });
}
