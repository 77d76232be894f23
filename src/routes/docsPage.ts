// Renders the OpenAPI document as one self-contained HTML page: no script, no font, nothing fetched from elsewhere.
export type ProblemTypeDoc = { type: string; status: number; title: string; when: string; retry: string };

type Json = Record<string, any>;

const escape = (text: unknown) =>
  String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The little Markdown the document uses: `code`, and blank-line paragraphs. */
const prose = (text: unknown) =>
  String(text ?? '')
    .split(/\n\n+/)
    .map((para) => `<p>${escape(para).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
    .join('');

const refName = (ref: string) => ref.split('/').pop()!;

function resolve(doc: Json, node: Json): Json {
  return node?.$ref ? resolve(doc, doc.components[node.$ref.split('/')[2]][refName(node.$ref)]) : node;
}

function typeOf(doc: Json, schema: Json | undefined): string {
  if (!schema) return '';
  if (schema.$ref) return `<a href="#schema-${refName(schema.$ref)}">${refName(schema.$ref)}</a>`;
  if (schema.allOf) return schema.allOf.map((s: Json) => typeOf(doc, s)).join(' + ');
  if (schema.oneOf) return schema.oneOf.map((s: Json) => typeOf(doc, s)).join(' | ');
  if (schema.enum) return schema.enum.map((e: unknown) => `<code>${escape(e)}</code>`).join(' | ');
  if (schema.type === 'array') return `array of ${typeOf(doc, schema.items) || 'any'}`;
  const types = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  return escape(schema.format ? `${types} (${schema.format})` : types);
}

function rules(schema: Json | undefined): string {
  if (!schema) return '';
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`max ${schema.maximum}`);
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} values`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  if (schema.pattern) parts.push(`pattern <code>${escape(schema.pattern)}</code>`);
  return parts.join(', ');
}

function operation(doc: Json, path: string, method: string, op: Json): string {
  const id = op.operationId;
  const params = (op.parameters ?? []).map((p: Json) => resolve(doc, p));
  const paramRows = params
    .map((p: Json) => `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}${p.required ? ', required' : ''}</td><td>${typeOf(doc, p.schema)}</td><td>${rules(p.schema)}</td><td>${prose(p.description)}</td></tr>`)
    .join('');
  const responses = Object.entries(op.responses ?? {})
    .map(([status, raw]) => {
      const response = resolve(doc, raw as Json);
      const contents = Object.entries(response.content ?? {})
        .map(([type, body]) => `<code>${escape(type)}</code> ${typeOf(doc, (body as Json).schema)}`)
        .join('<br>');
      return `<tr><td>${escape(status)}</td><td>${prose(response.description)}</td><td>${contents}</td></tr>`;
    })
    .join('');
  const scope = op['x-scope'] ? `<code>${escape(op['x-scope'])}</code>` : op.security?.length ? 'any valid token' : 'none (no token)';
  const cost = op['x-quota-cost'] ?? 'none';
  return `<section class="op" id="${escape(id)}">
<h3><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>
<p class="summary">${escape(op.summary)}</p>${prose(op.description)}
<p class="meta">Scope: ${scope} · Quota cost: ${escape(cost)}</p>
${paramRows ? `<table><thead><tr><th>Parameter</th><th>In</th><th>Type</th><th>Rules</th><th>Description</th></tr></thead><tbody>${paramRows}</tbody></table>` : ''}
<table><thead><tr><th>Status</th><th>Meaning</th><th>Body</th></tr></thead><tbody>${responses}</tbody></table>
</section>`;
}

function schemaSection(doc: Json, name: string, schema: Json): string {
  const required = new Set<string>(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {})
    .map(([field, s]) => `<tr><td><code>${escape(field)}</code>${required.has(field) ? '' : ' (optional)'}</td><td>${typeOf(doc, s as Json)}</td><td>${rules(s as Json)}</td><td>${prose((s as Json).description)}</td></tr>`)
    .join('');
  return `<section id="schema-${escape(name)}"><h3>${escape(name)}</h3>${prose(schema.description)}${
    rows ? `<table><thead><tr><th>Field</th><th>Type</th><th>Rules</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>${typeOf(doc, schema)}</p>`
  }</section>`;
}

const STYLE = `body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px}nav{columns:2;font-size:14px}h1{margin-bottom:0}
table{border-collapse:collapse;width:100%;margin:8px 0 16px;font-size:14px}th,td{border:1px solid #d8dde6;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f5f9}td p{margin:0}code{font:13px ui-monospace,Menlo,Consolas,monospace;background:#f3f5f9;padding:0 3px;border-radius:3px}
pre{background:#1d2330;color:#f3f5f9;padding:12px;border-radius:6px;overflow-x:auto}pre code{background:none;color:inherit}
.op{border-top:2px solid #d8dde6;padding-top:8px}.method{display:inline-block;min-width:48px;padding:1px 6px;border-radius:4px;color:#fff;font-size:13px;text-align:center}
.get{background:#1f7a4d}.post{background:#2457c5}.summary{font-weight:600}.meta{color:#4a5468}`;

export function renderDocs(doc: Json, problemsUrl: string): string {
  const base = doc.servers?.[0]?.url ?? '';
  const ops = Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })));
  const toc = ops.map(({ path, method, op }) => `<li><a href="#${escape(op.operationId)}">${escape(method.toUpperCase())} ${escape(path)}</a></li>`).join('');
  const problems = (doc.components.schemas.Problem['x-problem-types'] as ProblemTypeDoc[])
    .map((p) => `<tr><td><a href="${escape(`${problemsUrl}/${p.type}`)}"><code>${escape(p.type)}</code></a></td><td>${p.status}</td><td>${escape(p.when)}</td><td>${escape(p.retry)}</td></tr>`)
    .join('');
  const scopes = Object.entries(doc.components.securitySchemes.oauth2.flows.clientCredentials.scopes as Record<string, string>)
    .map(([scope, what]) => `<tr><td><code>${escape(scope)}</code></td><td>${escape(what)}</td></tr>`)
    .join('');
  const schemas = Object.entries(doc.components.schemas as Json).map(([name, schema]) => schemaSection(doc, name, schema as Json)).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="icon" href="data:,"><title>${escape(doc.info.title)} API reference</title><style>${STYLE}</style></head><body><main>
<h1>${escape(doc.info.title)} API reference</h1><p>${escape(doc.info.summary)} Version ${escape(doc.info.version)}. The contract of record is <a href="${escape(base)}/v1/openapi.json">/v1/openapi.json</a>.</p>
${prose(doc.info.description)}
<h2 id="quick-start">Quick start</h2>
<pre><code># 1. Exchange the client id and secret for a token (valid 3600 s)
curl -s ${escape(base)}/api/connect/token -d grant_type=client_credentials -d client_id=$CLIENT_ID -d client_secret=$CLIENT_SECRET
# 2. See who you are: scopes, plan, quota, allow-lists
curl -s ${escape(base)}/v1/me -H "Authorization: Bearer $TOKEN"
# 3. Read a report's numbers
curl -s "${escape(base)}/v1/reports/$REPORT_ID/data?groupBy=campaign&amp;dateFrom=2026-01-01&amp;dateTo=2026-01-31" -H "Authorization: Bearer $TOKEN"</code></pre>
<h2>Operations</h2><nav><ul>${toc}</ul></nav>
<h2>Scopes</h2><table><thead><tr><th>Scope</th><th>Grants</th></tr></thead><tbody>${scopes}</tbody></table>
${ops.map(({ path, method, op }) => operation(doc, path, method, op)).join('\n')}
<h2 id="problems">Problem types</h2><p>Errors are RFC 9457 problem documents (<code>application/problem+json</code>); the set is closed at thirteen.</p>
<table><thead><tr><th>Type</th><th>Status</th><th>When</th><th>Retry</th></tr></thead><tbody>${problems}</tbody></table>
<h2>Schemas</h2>${schemas}
</main></body></html>`;
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${escape(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;

export function renderProblem(p: ProblemTypeDoc, baseUrl: string): string {
  return page(
    p.type,
    `<h1><code>${escape(p.type)}</code></h1><p class="summary">${escape(p.title)} (HTTP ${p.status})</p>
<h2>When</h2><p>${escape(p.when)}</p><h2>Retry</h2><p>${escape(p.retry)}</p>
<p><a href="${escape(baseUrl)}/v1/docs#problems">All problem types</a></p>`,
  );
}

export function renderProblemIndex(types: ProblemTypeDoc[], baseUrl: string): string {
  return page(
    'Problem types',
    `<h1>Problem types</h1><ul>${types.map((p) => `<li><a href="${escape(baseUrl)}/problems/${escape(p.type)}"><code>${escape(p.type)}</code></a> (${p.status}): ${escape(p.title)}</li>`).join('')}</ul>`,
  );
}
