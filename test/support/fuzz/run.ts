// Sends fuzz cases and judges each answer against the spec: never 5xx; every error in the Error body
// {error, status, detail?} with status equal to the HTTP status; 422 details as [{loc, msg, type}] whose
// loc starts with body/query/path/header and follows what was sent (integers only at array positions);
// the status a case expects; and no write with invalid input answered 2xx.
import { FuzzCase, Raw } from './cases';

export interface Outcome { c: FuzzCase; status: number; body: unknown; error?: string }

export interface FuzzReport {
  sent: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  problems: string[];
  /** Health checks answered 503 in their documented body (a dependency slower than the check's deadline). */
  healthUnavailable: string[];
}

/** Percent-encoding that also writes lone surrogates (as the three bytes UTF-8 would give them: invalid UTF-8). */
function encode(v: string | Raw): string {
  if (typeof v !== 'string') return v.raw;
  let out = '';
  for (const ch of v) {
    const cu = ch.charCodeAt(0);
    out += ch.length === 1 && cu >= 0xd800 && cu <= 0xdfff
      ? [0xe0 | (cu >> 12), 0x80 | ((cu >> 6) & 0x3f), 0x80 | (cu & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
      : encodeURIComponent(ch);
  }
  return out;
}

function urlOf(c: FuzzCase, origins: { api: string; legacy: string }): string {
  const path = c.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encode(c.pathParams[name]));
  const query = c.query.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  return `${c.op.listener === 'api' ? origins.api : origins.legacy}${path}${query ? `?${query}` : ''}`;
}

async function send(c: FuzzCase, origins: { api: string; legacy: string }): Promise<Outcome> {
  const headers: Record<string, string> = { ...c.headers };
  if (c.body?.contentType) headers['content-type'] = c.body.contentType;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 15_000);
  try {
    const res = await fetch(urlOf(c, origins), { method: c.op.method, headers, body: c.body?.bytes as BodyInit | undefined, signal: abort.signal });
    // A lobby event stream that opened (a valid GET) is not read: its status is the answer.
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      abort.abort();
      return { c, status: res.status, body: null };
    }
    const text = await res.text();
    let body: unknown = text;
    try { body = text ? JSON.parse(text) : null; } catch { /* judged below */ }
    return { c, status: res.status, body };
  } catch (err) {
    return { c, status: 0, body: null, error: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

const WHERE = new Set(['body', 'query', 'path', 'header']);
const describeCase = (c: FuzzCase) => `${c.op.method} ${c.op.path} [${c.label}]`;

/** loc against the request: after "body", an integer where the sent value was an array, a string elsewhere. */
function locProblem(loc: unknown[], c: FuzzCase): string | null {
  if (!loc.every((e) => typeof e === 'string' || Number.isInteger(e))) return 'loc entries must be strings or integers';
  if (!WHERE.has(loc[0] as string)) return `loc must start with body, query, path or header (got ${JSON.stringify(loc[0])})`;
  if (loc[0] !== 'body') {
    if (loc.length > 1 && typeof loc[1] !== 'string') return 'a parameter name in loc must be a string';
    if (loc.length > 2 && !(loc[0] === 'query' && loc.length === 3 && Number.isInteger(loc[2]))) return 'loc of a parameter is [where, name]';
    return null;
  }
  let node: unknown = c.body?.json;
  for (const entry of loc.slice(1)) {
    if (Array.isArray(node)) {
      if (!Number.isInteger(entry)) return `loc entry ${JSON.stringify(entry)} names a position of an array: it must be an integer`;
    } else if (typeof entry !== 'string') {
      return `loc entry ${JSON.stringify(entry)} names a field: it must be a string`;
    }
    node = node !== null && typeof node === 'object' ? (node as Record<string | number, unknown>)[entry as string | number] : undefined;
  }
  return null;
}

const sameLoc = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A health check's 503 in its documented body ({status, checks} with a failing check): the health routes
 * report the platform's dependencies, and one that did not answer within the check's deadline (a loaded CI
 * machine) is that route's contract, whatever the input. Not a server error; counted apart.
 */
export function isHealthUnavailable(o: Outcome): boolean {
  if (o.status !== 503 || o.c.op.method !== 'GET' || !/^\/api\/health(\/ready)?$/.test(o.c.op.path)) return false;
  const body = o.body as { status?: unknown; checks?: Record<string, { ok?: unknown }> } | null;
  return typeof body?.status === 'string' && body.status !== 'ok' && typeof body.checks === 'object' && body.checks !== null
    && Object.values(body.checks).some((c) => c?.ok === false);
}

export function judge(o: Outcome): string[] {
  const out: string[] = [];
  const what = describeCase(o.c);
  if (o.status === 0) return [`${what}: no answer (${o.error})`];
  if (isHealthUnavailable(o)) return [];
  if (o.status >= 500) out.push(`${what}: ${o.status} ${JSON.stringify(o.body).slice(0, 200)}`);
  const write = o.c.op.method !== 'GET';
  if (write && o.status < 300) out.push(`${what}: a write with invalid input answered ${o.status}: ${urlOf(o.c, { api: '', legacy: '' }).slice(0, 300)} ${String(o.c.body?.bytes ?? '').slice(0, 300)}`);
  if (o.c.expect && !o.c.expect.status.includes(o.status) && o.status !== 429) {
    out.push(`${what}: expected ${o.c.expect.status.join('|')}, got ${o.status} ${JSON.stringify(o.body).slice(0, 300)}`);
  }
  if (o.status < 400) return out;
  const body = o.body as Record<string, unknown> | null;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [...out, `${what}: error body is not a JSON object: ${String(o.body).slice(0, 120)}`];
  const extra = Object.keys(body).filter((k) => k !== 'error' && k !== 'status' && k !== 'detail');
  if (extra.length > 0) out.push(`${what}: error body has fields beyond {error, status, detail}: ${extra.join(', ')}`);
  if (typeof body.error !== 'string') out.push(`${what}: error is not a string`);
  if (body.status !== o.status) out.push(`${what}: body status ${String(body.status)} is not the HTTP status ${o.status}`);
  if (o.status === 422 || Array.isArray(body.detail)) {
    const detail = body.detail as { loc?: unknown; msg?: unknown; type?: unknown }[] | undefined;
    if (!Array.isArray(detail) || detail.length === 0) out.push(`${what}: 422 without a detail array`);
    for (const issue of Array.isArray(detail) ? detail : []) {
      if (!Array.isArray(issue.loc) || typeof issue.msg !== 'string' || typeof issue.type !== 'string') {
        out.push(`${what}: detail entry is not {loc, msg, type}: ${JSON.stringify(issue).slice(0, 200)}`);
        continue;
      }
      const problem = locProblem(issue.loc, o.c);
      if (problem) out.push(`${what}: ${problem}: ${JSON.stringify(issue.loc)}`);
    }
    const want = o.c.expect?.loc;
    if (want && o.status === 422 && Array.isArray(detail) && !detail.some((i) => Array.isArray(i.loc) && sameLoc(i.loc, want))) {
      out.push(`${what}: no issue at ${JSON.stringify(want)}: ${JSON.stringify(detail).slice(0, 300)}`);
    }
  } else if (body.detail !== undefined && typeof body.detail !== 'string') {
    out.push(`${what}: detail is neither a string nor an array`);
  }
  return out;
}

/** Sends every case, `concurrency` at a time, and judges each answer. */
export async function runFuzz(cases: FuzzCase[], origins: { api: string; legacy: string }, concurrency = 6): Promise<FuzzReport> {
  const report: FuzzReport = { sent: 0, byStatus: {}, serverErrors: 0, problems: [], healthUnavailable: [] };
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < cases.length) {
      const o = await send(cases[next++], origins);
      report.sent++;
      report.byStatus[o.status] = (report.byStatus[o.status] ?? 0) + 1;
      if (isHealthUnavailable(o)) report.healthUnavailable.push(`${describeCase(o.c)}: ${JSON.stringify(o.body).slice(0, 400)}`);
      else if (o.status >= 500) report.serverErrors++;
      report.problems.push(...judge(o));
    }
  }));
  return report;
}
