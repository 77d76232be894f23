// W3C Trace Context: the incoming traceparent's trace id becomes the problem traceId; one goes out on every response.
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

// Random bytes are drawn from the Web Crypto API a pool at a time and kept as hex: one call per request was the
// pipeline's top cost, and a slice of a ready hex string is cheaper than formatting bytes every time. The hex is
// written as ASCII codes and decoded once: appended two characters at a time, it made a new string at every step.
const POOL_SIZE = 4096;
const HEX_CODES = new TextEncoder().encode('0123456789abcdef');
const ascii = new TextDecoder();
let pool = '';
let offset = 0;

function randomHex(bytes: number): string {
  const chars = bytes * 2;
  if (offset + chars > pool.length) {
    const random = crypto.getRandomValues(new Uint8Array(POOL_SIZE));
    const codes = new Uint8Array(POOL_SIZE * 2);
    for (let i = 0; i < POOL_SIZE; i++) {
      codes[2 * i] = HEX_CODES[random[i] >> 4];
      codes[2 * i + 1] = HEX_CODES[random[i] & 15];
    }
    pool = ascii.decode(codes);
    offset = 0;
  }
  const out = pool.slice(offset, offset + chars);
  offset += chars;
  return out;
}

export type Trace = { traceId: string; traceparent: string };

/** W3C Trace Context §3.2: reuse a valid trace id (not all zeros), with a new span id of ours. */
export function traceFrom(header: string | null): Trace {
  const match = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  const traceId = match && !/^0+$/.test(match[1]) ? match[1] : randomHex(16);
  return { traceId, traceparent: `00-${traceId}-${randomHex(8)}-01` };
}
