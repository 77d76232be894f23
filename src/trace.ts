// W3C Trace Context: the incoming traceparent's trace id becomes the problem traceId; one goes out on every response.
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

function randomHex(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  let out = '';
  for (const byte of buffer) out += byte.toString(16).padStart(2, '0');
  return out;
}

export type Trace = { traceId: string; traceparent: string };

/** W3C Trace Context §3.2: reuse a valid trace id (not all zeros), with a new span id of ours. */
export function traceFrom(header: string | null): Trace {
  const match = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  const traceId = match && !/^0+$/.test(match[1]) ? match[1] : randomHex(16);
  return { traceId, traceparent: `00-${traceId}-${randomHex(8)}-01` };
}
