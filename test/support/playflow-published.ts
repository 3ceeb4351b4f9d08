// The hosted service's own published API descriptions (v2 servers and builds; the legacy lobby API with its
// matchmaker), read at test time from ../shared/spec/playflow-published beside the repository (or
// PLAYFLOW_PUBLISHED_DIR) and never copied into it. Every response an e2e suite's `client()` receives on a
// route those documents describe is checked against them (test/support/http.ts): a 2xx status the document
// does not list for the route, or a body that its schema for that status refuses, fails the call.
// Statuses a document lists without a body, and error statuses it does not list, are not checked here (our
// errors carry the Error body of docs/api.md, which the suites check themselves).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

const ROOT = path.join(__dirname, '..', '..');
export const PUBLISHED_DIR = process.env.PLAYFLOW_PUBLISHED_DIR ?? path.resolve(ROOT, '..', 'shared', 'spec', 'playflow-published');

export const DOCUMENTS = {
  v2: 'v2-servers-builds.openapi.json',
  legacy: 'legacy-lobbies-matchmaker.openapi.json',
} as const;
export type DocumentName = keyof typeof DOCUMENTS;

/** Why the documents cannot be used here, or null when both are present. */
export function publishedMissing(): string | null {
  const absent = Object.values(DOCUMENTS).filter((f) => !existsSync(path.join(PUBLISHED_DIR, f)));
  return absent.length === 0 ? null : `the hosted service's published documents are not in ${PUBLISHED_DIR} (${absent.join(', ')})`;
}

interface Operation { template: string; re: RegExp; method: string; responses: Record<string, { schema?: unknown }> }
interface Loaded { ops: Operation[]; ajv: Ajv; validators: Map<string, ValidateFunction> }

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** OpenAPI 3.0 writes `nullable: true` beside a type; JSON Schema says it with a type list. */
function nullableToTypes(node: Json): Json {
  if (Array.isArray(node)) return node.map(nullableToTypes);
  if (node === null || typeof node !== 'object') return node;
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'nullable' || k === 'example') continue;
    // The legacy GET /matchmaker/tickets/{id} answers one of two open shapes (a ticket, a player's status)
    // whose status enums share "matched": a matched body fits both, which oneOf would refuse. Read as anyOf.
    out[k === 'oneOf' ? 'anyOf' : k] = nullableToTypes(v);
  }
  if (node.nullable === true) {
    if (typeof node.type === 'string') out.type = [node.type, 'null'];
    else if (out.enum && Array.isArray(out.enum)) out.enum = [...out.enum, null];
    else if (out.type === undefined) return out;
  }
  return out;
}

const loaded = new Map<DocumentName, Loaded>();

function load(name: DocumentName): Loaded {
  const hit = loaded.get(name);
  if (hit) return hit;
  const doc = JSON.parse(readFileSync(path.join(PUBLISHED_DIR, DOCUMENTS[name]), 'utf8')) as {
    openapi: string; paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;
    components?: { schemas?: Record<string, Json> };
  };
  const v31 = doc.openapi.startsWith('3.1');
  const ajv = v31 ? new Ajv2020({ strict: false, allErrors: true, validateSchema: false }) : new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv as unknown as Parameters<typeof addFormats>[0]);
  const components = doc.components?.schemas ?? {};
  ajv.addSchema({ $id: componentsId(name), components: { schemas: v31 ? components : nullableToTypes(components as Json) } } as object);
  const ops: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(methods)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const responses: Operation['responses'] = {};
      for (const [status, r] of Object.entries(op.responses)) responses[status] = { schema: r.content?.['application/json']?.schema };
      ops.push({ template, re, method: method.toUpperCase(), responses });
    }
  }
  // Literal segments win over parameters (`/lobbies/code/{code}/players` before `/lobbies/{id}/players`).
  ops.sort((a, b) => literalWeight(b.template) - literalWeight(a.template));
  const l = { ops, ajv: ajv as Ajv, validators: new Map<string, ValidateFunction>() };
  loaded.set(name, l);
  return l;
}

/** An absolute id for a document's components, so that references resolve whatever the compiled schema's base. */
function componentsId(name: DocumentName): string {
  return `https://published.invalid/${name}.json`;
}

function literalWeight(template: string): number {
  return template.split('/').filter((s) => s && !s.startsWith('{')).length;
}

/** Which document describes a URL, and the path it is written under there; null for any other route. */
export function describedBy(url: string): { name: DocumentName; path: string } | null {
  const { pathname } = new URL(url);
  if (pathname.startsWith('/api/v2/')) return { name: 'v2', path: pathname.slice('/api'.length) };
  if (pathname === '/health') return { name: 'v2', path: pathname };
  if (/^\/(lobbies|matchmaker)(\/|$)/.test(pathname)) return { name: 'legacy', path: pathname };
  return null;
}

export interface PublishedCheck {
  /** The document's operation (method and path template), when it describes this request. */
  operation: string | null;
  problems: string[];
}

/** Routes seen by `checkPublished` in this test file, as `<document> <METHOD> <template> <status>`. */
export const checkedRoutes = new Set<string>();

/** Checks one response against the published document that describes its route (no document: nothing to check). */
export function checkPublished(method: string, url: string, status: number, body: unknown): PublishedCheck {
  const at = describedBy(url);
  if (!at || publishedMissing()) return { operation: null, problems: [] };
  const doc = load(at.name);
  // The v2 list is published with a trailing slash; its clients call it either way.
  const candidates = [at.path, at.path.endsWith('/') ? at.path.slice(0, -1) : `${at.path}/`];
  const op = doc.ops.find((o) => o.method === method.toUpperCase() && candidates.some((p) => o.re.test(p)));
  if (!op) return { operation: null, problems: [] };
  const operation = `${method.toUpperCase()} ${op.template}`;
  checkedRoutes.add(`${at.name} ${operation} ${status}`);
  const documented = op.responses[String(status)];
  if (!documented) {
    const ok = Object.keys(op.responses).filter((s) => s.startsWith('2'));
    return { operation, problems: status >= 200 && status < 300 ? [`status ${status} is not one the document gives (${ok.join(', ')})`] : [] };
  }
  if (documented.schema === undefined) return { operation, problems: [] };
  const key = `${operation} ${status}`;
  let validate = doc.validators.get(key);
  if (!validate) {
    const schema = at.name === 'v2' ? documented.schema : nullableToTypes(documented.schema as Json);
    validate = doc.ajv.compile(rebase(schema, componentsId(at.name)) as object);
    doc.validators.set(key, validate);
  }
  if (validate(body)) return { operation, problems: [] };
  return { operation, problems: (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? 'invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`) };
}

/** `#/components/…` references point into the document's components, registered under `componentsId(name)`. */
function rebase(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rebase(s, id));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${id}${v}` : rebase(v, id);
  return out;
}

/** Throws with the problems when the response does not follow the published document. */
export function assertPublished(method: string, url: string, status: number, body: unknown): void {
  const { operation, problems } = checkPublished(method, url, status, body);
  if (problems.length > 0) {
    throw new Error(`${method} ${url} → ${status} does not follow the hosted service's published ${operation}:\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
  }
}
