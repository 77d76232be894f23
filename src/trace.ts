// W3C Trace Context: the incoming traceparent's trace id becomes the problem traceId; one goes out on every response.
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

// Random bytes are drawn from the Web Crypto API a pool at a time: one call per request was the pipeline's top cost.
const POOL_SIZE = 4096;
let pool = new Uint8Array(0);
let offset = POOL_SIZE;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_SIZE));
    offset = 0;
  }
  let out = '';
  for (let i = 0; i < bytes; i++) out += HEX[pool[offset++]];
  return out;
}

export type Trace = { traceId: string; traceparent: string };

/** W3C Trace Context §3.2: reuse a valid trace id (not all zeros), with a new span id of ours. */
export function traceFrom(header: string | null): Trace {
  const match = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  const traceId = match && !/^0+$/.test(match[1]) ? match[1] : randomHex(16);
  return { traceId, traceparent: `00-${traceId}-${randomHex(8)}-01` };
}
