// Reading a postgres.js COPY ... TO STDOUT stream chunk by chunk.

/** The parts of postgres.js's COPY stream (a Node Readable) used here. */
export type CopyOut = {
  read(): Uint8Array | null;
  readonly readableEnded: boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
};

/** The COPY's next chunk, or null at its end; rejects with the query's error. */
export function nextChunk(stream: CopyOut): Promise<Uint8Array | null> {
  const chunk = stream.read();
  if (chunk !== null) return Promise.resolve(chunk);
  if (stream.readableEnded) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const settle = (error?: unknown) => {
      stream.removeListener('readable', onReadable);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', settle);
      stream.removeListener('close', onClose);
      if (error !== undefined) reject(error);
    };
    const onReadable = () => (settle(), resolve(nextChunk(stream)));
    const onEnd = () => (settle(), resolve(null));
    const onClose = () => (
      settle(), stream.readableEnded ? resolve(null) : reject(new Error('the COPY stream closed early'))
    );
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', settle);
    stream.on('close', onClose);
  });
}
