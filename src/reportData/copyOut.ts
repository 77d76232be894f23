// Reading a postgres.js COPY ... TO STDOUT stream chunk by chunk, and reading one given up on to its end.

/** The parts of postgres.js's COPY stream (a Node Readable) used here. */
export type CopyOut = {
  read(): Uint8Array | null;
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  resume(): unknown;
  _read(size: number): void;
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
    const onClose = () => (settle(), stream.readableEnded ? resolve(null) : reject(new Error('the COPY stream closed early')));
    stream.on('readable', onReadable);
    stream.on('end', onEnd);
    stream.on('error', settle);
    stream.on('close', onClose);
  });
}

/**
 * Reads what is left of a COPY and drops it. postgres.js stops reading the connection while a COPY's stream is full,
 * and PostgreSQL waits on its socket before it sees a cancel: a COPY given up on must be read to its end, or the
 * connection would hang with it.
 */
export function drain(stream: CopyOut): Promise<void> {
  if (stream.destroyed || stream.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on('error', () => {});
    stream.on('close', () => resolve());
    stream.on('end', () => resolve());
    stream.on('data', () => {});
    stream.resume();
  });
}
