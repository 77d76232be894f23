// GET /v1/openapi.json, /v1/docs and /problems/{type}: the contract, for machines and for people. No token, no quota.
import openapi from '../../spec/openapi.json' with { type: 'json' };
import type { Context } from '../http/context.ts';
import { renderDocs, renderProblem, renderProblemIndex, type ProblemTypeDoc } from './docsPage.ts';
import { ApiError } from '../http/problem.ts';
import { JSON_TYPE, json, respond } from '../http/respond.ts';

const problemTypes = openapi.components.schemas.Problem['x-problem-types'] as ProblemTypeDoc[];
const html = (body: string) =>
  respond(body, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      // Offline and self-contained: nothing may load from anywhere but this page.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
      'cache-control': 'public, max-age=300',
    },
  });

export function contract(baseUrl: string, problemsUrl: string) {
  // Rendered once: the document does not change while the process runs.
  const document = { ...openapi, servers: [{ url: baseUrl, description: 'This server' }] };
  const documentText = JSON.stringify(document);
  const docsPage = renderDocs(document, problemsUrl);
  const pages = new Map(problemTypes.map((p) => [p.type, renderProblem(p, baseUrl)]));
  const index = renderProblemIndex(problemTypes, baseUrl);
  return {
    openapi: () => respond(documentText, { headers: { 'content-type': JSON_TYPE, 'cache-control': 'public, max-age=300' } }),
    docs: () => html(docsPage),
    problems: () => html(index),
    problem(ctx: Context) {
      const page = pages.get(ctx.params.type ?? '');
      if (!page) throw new ApiError('not-found', `There is no problem type ${ctx.params.type}.`);
      return ctx.request.headers.get('accept')?.includes('application/json')
        ? json(problemTypes.find((p) => p.type === ctx.params.type))
        : html(page);
    },
  };
}
