// GET /v1/openapi.json, /v1/docs and /problems/{type}: the contract, for machines and for people. No token, no quota.
import openapi from '../../spec/openapi.json' with { type: 'json' };
import { gzipSync } from 'node:zlib';
import type { Context } from '../http/context.ts';
import {
  problemTypesSection,
  redocScript,
  renderProblem,
  renderProblemIndex,
  renderReference,
  type ProblemTypeDoc,
} from './docsPage.ts';
import { ApiError } from '../http/problem.ts';
import { JSON_TYPE, json, respond } from '../http/respond.ts';

const problemTypes = openapi.components.schemas.Problem['x-problem-types'] as ProblemTypeDoc[];
// Offline and self-contained: nothing may load from anywhere but the page itself.
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
const html = (body: string | Uint8Array<ArrayBuffer>, csp = PAGE_CSP, more: Record<string, string> = {}) =>
  respond(body, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'cache-control': 'public, max-age=300',
      ...more,
    },
  });

/** Whether Accept-Encoding takes gzip (RFC 9110 §12.5.3: a q of 0 refuses it). */
const takesGzip = (header: string | null) =>
  (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (!q || Number(q.slice(2)) > 0);
  });

// The document's examples are written for https://readout.example; served, they name this server.
const EXAMPLE_BASE = 'https://readout.example';
const inString = (url: string) => JSON.stringify(url).slice(1, -1);

export function contract(baseUrl: string, problemsUrl: string) {
  // Rendered once: the document does not change while the process runs.
  const text = JSON.stringify(openapi)
    .replaceAll(`${EXAMPLE_BASE}/problems`, inString(problemsUrl))
    .replaceAll(EXAMPLE_BASE, inString(baseUrl));
  const document = { ...JSON.parse(text), servers: [{ url: baseUrl, description: 'This server' }] };
  const documentText = JSON.stringify(document);
  // The page adds what people read and machines have as x-problem-types: the problem types, linked to their pages.
  const shown = {
    ...document,
    info: {
      ...document.info,
      description: `${document.info.description}\n\n${problemTypesSection(problemTypes, problemsUrl)}`,
    },
  };
  // Built at the first request (Redoc's script is a megabyte, which most processes' apps never serve), then kept,
  // with its gzip form: the page shrinks to about a quarter.
  let reference: { html: string; gzip: Uint8Array<ArrayBuffer>; csp: string } | undefined;
  const referencePage = () => {
    if (reference) return reference;
    const { html, csp } = renderReference(shown, redocScript());
    return (reference = { html, csp, gzip: new Uint8Array(gzipSync(html)) });
  };
  const pages = new Map(problemTypes.map((p) => [p.type, renderProblem(p, baseUrl)]));
  const index = renderProblemIndex(problemTypes, baseUrl);
  return {
    openapi: () =>
      respond(documentText, { headers: { 'content-type': JSON_TYPE, 'cache-control': 'public, max-age=300' } }),
    docs(ctx: Context) {
      const page = referencePage();
      const vary = { vary: 'accept-encoding' };
      return takesGzip(ctx.request.headers.get('accept-encoding'))
        ? html(page.gzip, page.csp, { ...vary, 'content-encoding': 'gzip' })
        : html(page.html, page.csp, vary);
    },
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
