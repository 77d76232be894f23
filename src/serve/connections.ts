// Connections end (docs/operations.md, "Connections"): node:http closes a connection whose headers are slow, or whose
// keep-alive has run out, but never one that has sent nothing at all, and it accepts sockets until the process runs
// out of file descriptors, when even /v1/health can no longer be reached. Here a connection that has not begun a
// request in time is closed, and past the cap a new connection takes the place of the oldest idle one.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export type ConnectionLimits = {
  /** A connection that has not completed a request's headers this long after it opened, or its last answer, closes. */
  headersTimeoutMs: number;
  /** A connection idle this long after an answer closes (it stays open for the next request until then). */
  keepAliveTimeoutMs: number;
  /** Open connections at most; past it the oldest idle one is closed for the new one, or the new one refused. */
  maxConnections: number;
};

/** File descriptors kept for everything but clients: database connections, files, logs. */
const RESERVED_FILES = 512;

/** The process's open-file limit (the soft RLIMIT_NOFILE), where Linux tells it. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
}

/** The default cap: the file limit less a reserve (half of a small limit), or 10,000 where the limit is unknown. */
export function defaultMaxConnections(limit: number | undefined): number {
  if (limit === undefined) return 10_000;
  return Math.max(1, limit >= 2 * RESERVED_FILES ? limit - RESERVED_FILES : Math.floor(limit / 2));
}

/**
 * Applies the limits to a listening node:http or node:https server. accepted: the event that hands over the socket a
 * request's `req.socket` is (`connection` for HTTP, `secureConnection` for HTTPS).
 */
export function limitConnections(
  server: Server,
  limits: ConnectionLimits,
  accepted: 'connection' | 'secureConnection',
): { open(): number } {
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  /** Connections with no request under way, oldest first: the ones a new connection may take the place of. */
  const idle = new Set<Socket>();
  const waiting = new WeakMap<Socket, ReturnType<typeof setTimeout>>();
  let open = 0;

  /** Idle again: it must begin its next request within ms (node:http's own keep-alive may close it first). */
  const idleFrom = (socket: Socket, ms: number) => {
    if (socket.destroyed) return;
    idle.add(socket);
    waiting.set(
      socket,
      setTimeout(() => socket.destroy(), ms),
    );
  };

  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
    if (open <= limits.maxConnections) return;
    const oldest = idle.values().next().value;
    if (oldest) oldest.destroy();
    else socket.destroy();
  });
  server.on(accepted, (socket: Socket) => {
    socket.once('close', () => {
      idle.delete(socket);
      clearTimeout(waiting.get(socket));
    });
    idleFrom(socket, limits.headersTimeoutMs);
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    idle.delete(socket);
    clearTimeout(waiting.get(socket));
    res.once('finish', () => idleFrom(socket, limits.keepAliveTimeoutMs + limits.headersTimeoutMs));
  });
  return { open: () => open };
}
