// One JSON log line a request (docs/decisions.md §8): time, method, path, status, ms, clientId, traceId, cost (and the
// standby that served its reads, when one did).
import type { Context } from './context.ts';
import { isoTime, isoTimeBytes, lineBuffer, piece, RepeatedJson, type LineBuffer } from './logLines.ts';
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

const TIME = piece('{"time":"');
const METHOD = piece('","method":');
const PATH = piece(',"path":');
const STATUS = piece(',"status":');
const MS = piece(',"ms":');
const CLIENT_ID = piece(',"clientId":');
const NULL = piece('null');
// A trace id is 32 hex digits (trace.ts).
const TRACE_ID = piece(',"traceId":"');
const COST = piece('","cost":');
const STANDBY = piece(',"standby":');
const ERROR = piece(',"error":');
const END = piece('}');
const methods = new RepeatedJson();
const paths = new RepeatedJson();
const clientIds = new RepeatedJson();

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
  out.raw(TIME);
  out.raw(isoTimeBytes(startedAt));
  out.raw(METHOD);
  out.raw(methods.of(method));
  out.raw(PATH);
  out.raw(paths.of(path));
  out.raw(STATUS);
  out.number(status);
  out.raw(MS);
  out.number(ms);
  out.raw(CLIENT_ID);
  out.raw(noted.clientId === undefined ? NULL : clientIds.of(noted.clientId));
  out.raw(TRACE_ID);
  out.ascii(trace.traceId);
  out.raw(COST);
  out.number(noted.cost ?? 0);
  if (noted.standby) {
    out.raw(STANDBY);
    out.json(noted.standby);
  }
  if (noted.error) {
    out.raw(ERROR);
    out.json(noted.error);
  }
  out.raw(END);
  out.end();
}

export type RequestLogger = (...line: Parameters<typeof requestLine>) => void;

/** Given a log, tests read each line as an object; the service writes the same line as text, by hand. */
export function requestLogger(log?: (line: LogLine) => void): RequestLogger {
  return log ? (...line) => log(requestLine(...line)) : (...line) => writeRequestLine(lineBuffer(), ...line);
}
