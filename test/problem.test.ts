import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { ApiError, PROBLEM_TYPES, problemResponse } from '../src/http/problem.ts';
import { toResponse } from '../src/http/answer.ts';
import type { Sql } from '../src/store/database.ts';

const context = { problemsUrl: 'https://p.example/problems', instance: '/v1/x', traceId: 'a'.repeat(32) };

test('the problem type set is closed at the thirteen of docs/decisions.md §8', () => {
  assert.equal(Object.keys(PROBLEM_TYPES).sort(), [
    'billing-unavailable',
    'data-source-unavailable',
    'identity-unavailable',
    'insufficient-scope',
    'internal-error',
    'invalid-parameter',
    'invalid-token',
    'not-found',
    'plan-feature-required',
    'rate-limit-exceeded',
    'rate-limiter-unavailable',
    'request-timeout',
    'subscription-locked',
  ]);
});

test('a problem document has every member of docs/decisions.md §8 and the problem+json type', async () => {
  const res = toResponse(
    problemResponse(new ApiError('rate-limit-exceeded', 'spent', { retryAfterSeconds: 42 }), context),
  );
  assert.is(res.status, 429);
  assert.is(res.headers.get('content-type'), 'application/problem+json');
  assert.is(res.headers.get('retry-after'), '42');
  assert.equal(await res.json(), {
    type: 'https://p.example/problems/rate-limit-exceeded',
    title: PROBLEM_TYPES['rate-limit-exceeded'].title,
    status: 429,
    detail: 'spent',
    instance: '/v1/x',
    traceId: 'a'.repeat(32),
    retryAfterSeconds: 42,
  });
});

test('internal-error never carries the detail it was given', async () => {
  const problem = problemResponse(new ApiError('internal-error', 'password=hunter2 at db.ts:12'), context);
  const body = await toResponse(problem).json();
  assert.is(body.status, 500);
  assert.not.match(body.detail, /hunter2/);
});

test('an unexpected exception becomes internal-error with no stack, and the log line has it', async () => {
  const logs: Record<string, unknown>[] = [];
  const app = createApp({ sql: {} as Sql, config: loadConfig({}), log: (l) => logs.push(l) });
  // A request whose headers cannot be read stands in for any unexpected fault inside the pipeline.
  const request = new Request('http://x/v1/nope');
  Object.defineProperty(request, 'headers', {
    get: () => {
      throw new Error('boom: secret internals');
    },
  });
  const res = await app(request);
  assert.is(res.status, 500);
  const text = await res.text();
  assert.not.match(text, /boom|secret|at /);
  assert.is(JSON.parse(text).type.endsWith('/internal-error'), true);
  assert.match(String(logs[0]?.error), /boom: secret internals/);
});

test.run();
