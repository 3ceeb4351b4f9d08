// A self-contained reference page (no CDN: deployments may be offline).
const esc = (s: unknown) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export function renderDocsPage(doc: Record<string, unknown>): string {
  const paths = doc.paths as Record<string, Record<string, { summary: string; parameters?: { name: string; in: string; required: boolean }[]; requestBody?: unknown; responses: Record<string, { description: string }> }>>;
  const rows = Object.entries(paths).flatMap(([url, ops]) => Object.entries(ops).map(([verb, op]) => `
    <section><h3><code>${verb.toUpperCase()} ${esc(url)}</code></h3><p>${esc(op.summary)}</p>
    ${op.parameters?.length ? `<p>Parameters: ${op.parameters.map((p) => `<code>${esc(p.name)}</code> (${p.in}${p.required ? ', required' : ''})`).join(', ')}</p>` : ''}
    ${op.requestBody ? `<details><summary>Request body schema</summary><pre>${esc(JSON.stringify(op.requestBody, null, 2))}</pre></details>` : ''}
    <p>Responses: ${Object.entries(op.responses).map(([s, r]) => `<b>${s}</b> ${esc(r.description)}`).join(' · ')}</p></section>`));
  const info = doc.info as { title: string; version: string };
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(info.title)} reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em}section{border-top:1px solid #ddd;padding:.5em 0}pre{background:#f6f6f6;padding:1em;overflow:auto}</style></head>
<body><h1>${esc(info.title)} ${esc(info.version)}</h1><p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</p>${rows.join('')}</body></html>`;
}
