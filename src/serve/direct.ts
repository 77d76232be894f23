// Answers an adapter can write without the Fetch machinery (Node's): GET /v1/health while no database check is due, and
// the problem document for a request HTTP itself refused. Same status, headers, body and log line as the pipeline.
import { ApiError, methodNotAllowed, problemAnswer } from '../http/problem.ts';
import type { RequestLogger } from '../http/requestLog.ts';
import { traceFrom } from '../http/trace.ts';
import type { health } from '../routes/health.ts';
import type { Direct, DirectAnswer, Malformed } from './types.ts';

type Deps = {
  liveness: ReturnType<typeof health>;
  logRequest: RequestLogger;
  clock: () => number;
  problemsUrl: string;
};

export function directAnswers({ liveness, logRequest, clock, problemsUrl }: Deps) {
  const direct: Direct = (method, url, header) => {
    if (method !== 'GET' || url !== '/v1/health') return undefined;
    const answer = liveness.current();
    if (!answer) return undefined;
    const startedAt = clock();
    const trace = traceFrom(header('traceparent') ?? null);
    logRequest(method, url, answer.status, startedAt, clock() - startedAt, trace, {});
    return { status: answer.status, body: answer.body, headers: [...answer.headers, 'traceparent', trace.traceparent] };
  };

  /**
   * docs/decisions.md §8: a problem document even for what HTTP refused; 405 answers as not-found, as on every /v1
   * path.
   */
  const refuse = (why: Malformed, method: string, path: string): DirectAnswer => {
    const startedAt = clock();
    const trace = traceFrom(null);
    const context = { problemsUrl, instance: path || '/', traceId: trace.traceId };
    const answer = problemAnswer(refusal(why, method, path), context, trace.traceparent);
    logRequest(method || 'UNKNOWN', path || '/', answer.status, startedAt, clock() - startedAt, trace, {});
    return answer;
  };

  return { direct, refuse };
}

function refusal(why: Malformed, method: string, path: string): ApiError {
  const named = method.slice(0, 32);
  // docs/decisions.md §8: 400, the type's own status, not 414 or 431, which invalid-parameter does not carry.
  if (why === 'url-too-long')
    return new ApiError('invalid-parameter', 'The request line (the URL) is longer than the 16 KB this server reads.');
  if (why === 'headers-too-large')
    return new ApiError('invalid-parameter', 'The header section is larger than the 16 KB this server reads.');
  if (why === 'broken') return new ApiError('invalid-parameter', 'The request is not well-formed HTTP/1.1.');
  if (path === '/api/connect/token') {
    return new ApiError('invalid-parameter', `${named} is not allowed here; the token endpoint answers POST only.`, {
      status: 405,
      headers: { allow: 'POST' },
    });
  }
  return methodNotAllowed(named);
}
