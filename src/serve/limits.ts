// docs/decisions.md §8: a request line or header section past 16 KB is 400 invalid-parameter. Node's parser refuses
// such a request itself (node.ts); Deno's server takes larger ones, and Bun's refuses past its own limit with a bare
// 431 (its
// --max-http-header-size raises it), so the Fetch runtimes' adapters check what reaches them.
import type { DirectAnswer, Malformed, Refuse } from './types.ts';

export const REQUEST_HEAD_LIMIT = 16 * 1024;

/** What of request is past the limit, or undefined: the URL's path and query, or the headers' names and values. */
export function oversized(request: Request): Malformed | undefined {
  const url = request.url;
  const path = url.length - url.indexOf('/', url.indexOf('//') + 2);
  if (path > REQUEST_HEAD_LIMIT) return 'url-too-long';
  let size = 0;
  for (const [name, value] of request.headers) {
    size += name.length + value.length + 4;
    if (size > REQUEST_HEAD_LIMIT) return 'headers-too-large';
  }
  return undefined;
}

/** A Fetch handler that answers oversized requests as refuse says, and passes the rest to app. */
export function refusingOversized(app: (request: Request) => Response | Promise<Response>, refuse: Refuse | undefined) {
  return (request: Request): Response | Promise<Response> => {
    const why = oversized(request);
    const answer: DirectAnswer | undefined = why && refuse?.(why, request.method, pathOf(request.url));
    if (!answer) return app(request);
    const headers = new Headers({ connection: 'close' });
    for (let i = 0; i < answer.headers.length; i += 2) headers.set(answer.headers[i], answer.headers[i + 1]);
    return new Response(answer.body, { status: answer.status, headers });
  };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname.slice(0, 200);
  } catch {
    return '/';
  }
}
