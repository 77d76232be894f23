// Errors as data: the thirteen problem types of docs/decisions.md §8, and their RFC 9457 rendering.
import type { Answer } from './answer.ts';
import type { DirectAnswer } from './incoming.ts';
import { respond } from './respond.ts';

export const PROBLEM_TYPES = {
  'invalid-token': { status: 401, title: 'Invalid or missing access token' },
  'insufficient-scope': { status: 403, title: 'The token lacks the scope this endpoint needs' },
  'plan-feature-required': { status: 403, title: "The owner's plan does not include the public API" },
  'subscription-locked': { status: 403, title: 'The subscription is read-locked' },
  'not-found': { status: 404, title: 'Not found' },
  'invalid-parameter': { status: 400, title: 'A parameter is missing, malformed or out of range' },
  'rate-limit-exceeded': { status: 429, title: 'The hourly request budget is spent' },
  'rate-limiter-unavailable': { status: 503, title: 'Requests cannot be metered right now' },
  'billing-unavailable': { status: 503, title: 'The plan could not be established' },
  'identity-unavailable': { status: 503, title: 'The credential service did not answer' },
  'data-source-unavailable': { status: 503, title: 'The ad platform connection is broken' },
  'request-timeout': { status: 503, title: 'The request hit its deadline and was cancelled' },
  'internal-error': { status: 500, title: 'Internal error' },
} as const;

export type ProblemType = keyof typeof PROBLEM_TYPES;

export type ProblemOptions = {
  retryAfterSeconds?: number;
  /** Extra response headers, such as WWW-Authenticate or Allow. */
  headers?: Record<string, string>;
  /** Overrides the type's status where the same type serves two (405 is answered as not-found). */
  status?: number;
};

/** The one error the service throws on purpose; anything else becomes internal-error. */
export class ApiError extends Error {
  readonly type: ProblemType;
  readonly detail: string | undefined;
  readonly options: ProblemOptions;
  constructor(type: ProblemType, detail?: string, options: ProblemOptions = {}) {
    super(detail ?? type);
    this.type = type;
    this.detail = detail;
    this.options = options;
  }
}

export type ProblemContext = { problemsUrl: string; instance: string; traceId: string };

/** RFC 9457 §3.1: a problem document with the members the OpenAPI document's Problem schema lists. */
export function problemResponse(error: ApiError, context: ProblemContext): Answer {
  const { status, headers, body } = problemDocument(error, context);
  return respond(body, { status, headers });
}

/** The document as an answer an adapter writes itself (incoming.ts), content-length and traceparent included. */
export function problemAnswer(error: ApiError, context: ProblemContext, traceparent: string): DirectAnswer {
  const { status, headers, body } = problemDocument(error, context);
  const length = String(new TextEncoder().encode(body).length);
  return {
    status,
    body,
    headers: [...Object.entries(headers).flat(), 'content-length', length, 'traceparent', traceparent],
  };
}

/** The document's status, headers and JSON text. */
export function problemDocument(
  error: ApiError,
  context: ProblemContext,
): { status: number; headers: Record<string, string>; body: string } {
  const { status, title } = PROBLEM_TYPES[error.type];
  const retryAfterSeconds = error.options.retryAfterSeconds ?? null;
  const headers: Record<string, string> = { 'content-type': 'application/problem+json', ...error.options.headers };
  if (retryAfterSeconds !== null) headers['retry-after'] = String(retryAfterSeconds);
  const body = {
    type: `${context.problemsUrl}/${error.type}`,
    title,
    status: error.options.status ?? status,
    // internal-error never says what went wrong (docs/decisions.md §8).
    detail: error.type === 'internal-error' ? 'An internal error occurred.' : (error.detail ?? title),
    instance: context.instance,
    traceId: context.traceId,
    retryAfterSeconds,
  };
  return { status: body.status, headers, body: JSON.stringify(body) };
}

// Problems raised in more than one place, made by one named factory each.

/** docs/decisions.md §8: every 401 is the same, whatever the cause. */
export const invalidToken = () =>
  new ApiError(
    'invalid-token',
    'The access token is missing, malformed, expired or no longer valid. Request a new token.',
    {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    },
  );

/** docs/decisions.md §3: no plan, not even a snapshot; retry in a minute. */
export const billingUnavailable = () =>
  new ApiError('billing-unavailable', 'The plan could not be established, not even from a recent snapshot.', {
    retryAfterSeconds: 60,
  });

/** docs/decisions.md §3: the detail names the plan. */
export const planFeatureRequired = (planName = 'current') =>
  new ApiError('plan-feature-required', `The ${planName} plan does not include API access.`);

export const subscriptionLocked = () =>
  new ApiError('subscription-locked', 'The subscription is over its plan limits and read-locked; only /v1/me answers.');

/** docs/decisions.md §8: a method other than GET or HEAD on a /v1 path is 405, typed not-found. */
export const methodNotAllowed = (method: string) =>
  new ApiError(
    'not-found',
    `${method || 'That method'} is not allowed here; every /v1 path answers GET and HEAD only.`,
    {
      status: 405,
      headers: { allow: 'GET, HEAD' },
    },
  );
