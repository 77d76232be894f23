// One JSON log line a request (docs/decisions.md §8): time, method, path, status, ms, clientId, traceId, cost (and the
// standby that served its reads, when one did).
import type { Context } from './context.ts';
import { isoTime, lineBuffer, type LineBuffer } from './logLines.ts';
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
 * requestLine's JSON as JSON.stringify would write it, written into the turn's buffer a piece at a time: a cheap
 * request pays less for it than for an object stringified, or for a line of text encoded at the write.
 */
export function writeRequestLine(
  out: LineBuffer,
  method: string,
  path: string,
  status: number,
  startedAt: number,
  ms: number,
  trace: Trace,
  noted: Context['log'],
): void {
  out.ascii('{"time":"');
  out.ascii(isoTime(startedAt));
  out.ascii('","method":');
  out.json(method);
  out.ascii(',"path":');
  out.json(path);
  out.ascii(',"status":');
  out.number(status);
  out.ascii(',"ms":');
  out.number(ms);
  out.ascii(',"clientId":');
  if (noted.clientId === undefined) out.ascii('null');
  else out.json(noted.clientId);
  // A trace id is 32 hex digits (trace.ts).
  out.ascii(',"traceId":"');
  out.ascii(trace.traceId);
  out.ascii('","cost":');
  out.number(noted.cost ?? 0);
  if (noted.standby) {
    out.ascii(',"standby":');
    out.json(noted.standby);
  }
  if (noted.error) {
    out.ascii(',"error":');
    out.json(noted.error);
  }
  out.ascii('}');
  out.end();
}

export type RequestLogger = (...line: Parameters<typeof requestLine>) => void;

/** Given a log, tests read each line as an object; the service writes the same line as text, by hand. */
export function requestLogger(log?: (line: LogLine) => void): RequestLogger {
  return log ? (...line) => log(requestLine(...line)) : (...line) => writeRequestLine(lineBuffer(), ...line);
}
