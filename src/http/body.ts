// Reads a request body up to a limit, so a huge upload is refused without being buffered.
import type { IncomingRequest } from './incoming.ts';

export class BodyTooLarge extends Error {}

export async function readBodyText(request: IncomingRequest, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw new BodyTooLarge();
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) all.set(chunk, (offset += chunk.byteLength) - chunk.byteLength);
  // fatal: a body that is not UTF-8 is refused rather than read with replacement characters.
  return new TextDecoder('utf-8', { fatal: true }).decode(all);
}
