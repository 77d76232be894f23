// One JSON log line a request (docs/decisions.md §8): time, method, path, status, ms, clientId, traceId, cost (and the
// standby that served its reads, when one did).
import type { Context } from './context.ts';
import { isoTime, writeLine } from './logLines.ts';
import type { Trace } from './trace.ts';

export type LogLine = Record<string, unknown>;

/** One log line a request, whichever way it was answered. */
export function requestLine(
  method: string,
  path: string,
  status: number,
  startedAt: number,
  ms: number,
  trace: Trace,
  noted: Context['log'],
): LogLine {
  return {
    time: isoTime(startedAt),
    method,
    path,
    status,
    ms,
    clientId: noted.clientId ?? null,
    traceId: trace.traceId,
    cost: noted.cost ?? 0,
    ...(noted.standby ? { standby: noted.standby } : {}),
    ...(noted.error ? { error: noted.error } : {}),
  };
}

/**
 * requestLine as the JSON text JSON.stringify would give, written out by hand, which costs a cheap request less than
 * stringifying an object. Only the strings that come from outside go through JSON.stringify.
 */
export function requestLineText(
  method: string,
  path: string,
  status: number,
  startedAt: number,
  ms: number,
  trace: Trace,
  noted: Context['log'],
): string {
  const clientId = noted.clientId === undefined ? 'null' : JSON.stringify(noted.clientId);
  const standby = noted.standby ? `,"standby":${JSON.stringify(noted.standby)}` : '';
  const error = noted.error ? `,"error":${JSON.stringify(noted.error)}` : '';
  return (
    `{"time":"${isoTime(startedAt)}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},` +
    `"status":${status},"ms":${ms},"clientId":${clientId},"traceId":"${trace.traceId}",` +
    `"cost":${noted.cost ?? 0}${standby}${error}}`
  );
}

export type RequestLogger = (...line: Parameters<typeof requestLine>) => void;

/** Given a log, tests read each line as an object; the service writes the same line as text, by hand. */
export function requestLogger(log?: (line: LogLine) => void): RequestLogger {
  return log ? (...line) => log(requestLine(...line)) : (...line) => writeLine(requestLineText(...line));
}
