// The pages for people: the API reference (Redoc rendering the OpenAPI document, all of it inline, nothing fetched
// from another host) and one page a problem type.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { bundled } from '../bundled.ts';

export type ProblemTypeDoc = { type: string; status: number; title: string; when: string; retry: string };

type Json = Record<string, any>;

const escapeHtml = (text: unknown) =>
  String(text ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

// Redoc's standalone bundle shows a logo fetched from cdn.redoc.ly below its menu, its one request to another host;
// the copy served points it at an empty data: URI, which Redoc's own onError hides. The version is pinned and
// test/reference.test.ts fails the day the address moves.
export const REDOC_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** Redoc's standalone script, as served: from the executable, or from the redoc package. */
export function redocScript(): string {
  const source =
    bundled.redoc ?? readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  if (!source.includes(REDOC_LOGO))
    throw new Error(`redoc's bundle no longer names ${REDOC_LOGO}: check it for requests to other hosts`);
  return source.replaceAll(REDOC_LOGO, 'data:,');
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** What Redoc is told: its search, the first response of each operation open, the path in the middle column. */
const REDOC_OPTIONS = {
  expandResponses: '200',
  pathInMiddlePanel: true,
  requiredPropsFirst: true,
  jsonSampleExpandLevel: 4,
  hideDownloadButton: false,
  nativeScrollbars: true,
  theme: {
    colors: { primary: { main: '#2457c5' } },
    typography: {
      fontFamily: 'system-ui, -apple-system, "Segoe UI", sans-serif',
      headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", sans-serif' },
      code: { fontFamily: 'ui-monospace, Menlo, Consolas, monospace' },
    },
  },
};

/**
 * The page's own style: the introduction shown until Redoc has rendered, and code that wraps instead of scrolling
 * sideways (the quick start's long lines, the curl samples), everywhere Redoc puts a code block; a problem type's
 * name in the table stays whole, where Redoc's narrow middle column would break it mid-word, and the table fits.
 */
const REFERENCE_STYLE = `body{margin:0}
#intro{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;max-width:900px;margin:0 auto;
padding:32px 24px}
#intro h1{font-size:28px;margin:0 0 8px}#intro a{color:#2457c5}#intro .loading{color:#5c6370}
pre,pre code{white-space:pre-wrap!important;overflow-wrap:anywhere;word-break:break-word}
table td a code{white-space:nowrap!important;word-break:normal!important;overflow-wrap:normal!important}
.redoc-markdown table td,.redoc-markdown table th{padding:6px 8px!important}`;

/**
 * The reference page: the document as JSON data (escaped so that no `</script>` can end the block), Redoc's script
 * and the line that starts it. The scripts are allowed by their hashes; Redoc styles with inline style elements and
 * runs its search in a worker made from a blob.
 */
export function renderReference(document: Json, script: string): { html: string; csp: string } {
  const data = JSON.stringify(document).replace(/</g, '\\u003c');
  // The introduction stands until Redoc has rendered (its callback), so the first paint is never a bare spinner.
  const start =
    `Redoc.init(JSON.parse(document.getElementById('openapi').textContent), ${JSON.stringify(REDOC_OPTIONS)}, ` +
    `document.getElementById('reference'), () => document.getElementById('intro').remove());`;
  const title = `${escapeHtml(document.info.title)} API reference`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,"><title>${title}</title><style>${REFERENCE_STYLE}</style></head><body>
<header id="intro"><h1>${title}</h1><p>${escapeHtml(document.info.summary)}</p>
<p>The contract itself is <a href="openapi.json">/v1/openapi.json</a> (OpenAPI ${escapeHtml(document.openapi)}).
<span class="loading">The reference is loading…</span></p></header>
<noscript><p>This reference needs JavaScript.
The contract itself is <a href="openapi.json">/v1/openapi.json</a>.</p></noscript>
<div id="reference"></div>
<script id="openapi" type="application/json">${data}</script>
<script>${script}</script>
<script>${start}</script>
</body></html>`;
  const csp =
    `default-src 'none'; script-src ${sha256(script)} ${sha256(start)}; style-src 'unsafe-inline'; img-src data:; ` +
    "worker-src blob:; base-uri 'none'; form-action 'none'";
  return { html, csp };
}

/** The problem types as a table for the document's description, each linking to its page. */
export function problemTypesSection(types: ProblemTypeDoc[], problemsUrl: string): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const rows = types.map(
    (p) => `| [\`${p.type}\`](${problemsUrl}/${p.type}) | ${p.status} | ${cell(p.when)} | ${cell(p.retry)} |`,
  );
  return [
    '## Problem types',
    '',
    'Errors are RFC 9457 problem documents (`application/problem+json`); branch on `type` only. The set is closed:',
    '',
    '| Type | Status | When | Retry |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const STYLE = `body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px}
code{font:13px ui-monospace,Menlo,Consolas,monospace;background:#f3f5f9;padding:0 3px;border-radius:3px}
.summary{font-weight:600}`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">` +
  `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;

export function renderProblem(p: ProblemTypeDoc, baseUrl: string): string {
  return page(
    p.type,
    `<h1><code>${escapeHtml(p.type)}</code></h1><p class="summary">${escapeHtml(p.title)} (HTTP ${p.status})</p>
<h2>When</h2><p>${escapeHtml(p.when)}</p><h2>Retry</h2><p>${escapeHtml(p.retry)}</p>
<p><a href="${escapeHtml(baseUrl)}/v1/docs#section/Problem-types">All problem types</a></p>`,
  );
}

export function renderProblemIndex(types: ProblemTypeDoc[], baseUrl: string): string {
  return page('Problem types', `<h1>Problem types</h1><ul>${types.map((p) => problemItem(p, baseUrl)).join('')}</ul>`);
}

const problemItem = (p: ProblemTypeDoc, baseUrl: string) =>
  `<li><a href="${escapeHtml(baseUrl)}/problems/${escapeHtml(p.type)}"><code>${escapeHtml(p.type)}</code></a> ` +
  `(${p.status}): ${escapeHtml(p.title)}</li>`;
