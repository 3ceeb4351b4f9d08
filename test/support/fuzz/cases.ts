// Fuzz cases for one operation: each case breaks exactly one thing of an otherwise well-formed request
// (credentials, a path id, a query parameter, a header, the body's syntax, content type, size, or one
// value at one position of the body). Write operations only get cases that are invalid for certain, so a
// 2xx answer to one of them is a defect, never luck.
import { accepts, example, JsonSchema, positions } from './json-schema';
import { jsonText } from './json-text';
import { Operation, Param } from './operations';
import { Prng } from './prng';

/** A value sent as is in the URL (already percent-encoded, possibly malformed on purpose). */
export interface Raw { raw: string }
export type UrlValue = string | Raw;

export interface FuzzCase {
  op: Operation;
  label: string;
  pathParams: Record<string, UrlValue>;
  query: [string, UrlValue][];
  headers: Record<string, string>;
  body?: { bytes: string | Buffer; contentType?: string; json?: unknown };
  /** What the answer must be, when the case says it for certain. */
  expect?: { status: number[]; loc?: (string | number)[] };
}

export interface Fixtures {
  apiKey: string;
  adminToken: string;
  /** The valid value of a path or query parameter (an existing server, lobby, config...), or undefined for an example. */
  valueOf(op: Operation, param: Param): string | undefined;
  /** The valid x-player-id. */
  playerId: string;
}

export const MAX_DEPTH = 32;
const BAD_TEXT = ['a\u0000b', 'x\ud800', '\udc00y'];
const BODY_LIMIT = 1024 * 1024;

/** The spec's edge rule, written again from decisions.md: storable strings everywhere, values ≤ 32 levels deep. */
export function breaksEdgeRule(part: unknown): boolean {
  const stack: [unknown, number][] = [[part, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (unstorable(v)) return true;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_DEPTH) return true;
    for (const [k, x] of Object.entries(v)) {
      if (unstorable(k)) return true;
      stack.push([x, depth + 1]);
    }
  }
  return false;
}

function unstorable(s: string): boolean {
  return s.includes('\u0000') || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

function deep(levels: number, kind: 'object' | 'array'): unknown {
  let v: unknown = kind === 'object' ? { leaf: 1 } : [1];
  for (let i = 1; i < levels; i++) v = kind === 'object' ? { a: v } : [v];
  return v;
}

/** A query value against its schema, as the gateway reads query strings (numbers and booleans from text). */
export function acceptsQuery(schema: JsonSchema, value: string | undefined): boolean {
  if (value === undefined) return true;
  const branches = schema.anyOf ?? [schema];
  return branches.some((s) => {
    if (s.type === 'integer' || s.type === 'number') {
      if (!/^-?\d+(\.\d+)?$/.test(value)) return false;
      return accepts(s, Number(value));
    }
    if (s.type === 'boolean') return value === 'true' || value === 'false';
    return accepts(s, value);
  });
}

export function setAt(root: unknown, at: (string | number)[], value: unknown): unknown {
  if (at.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (let i = 0; i < at.length - 1; i++) {
    const key = at[i];
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = typeof at[i + 1] === 'number' ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[at[at.length - 1]] = value;
  return copy;
}

/** Values that break the schema at one position (the edge-rule ones break every schema). */
function badValues(s: JsonSchema, rng: Prng): { label: string; value: unknown; edge: boolean; keyLoc?: string }[] {
  const out: { label: string; value: unknown; edge: boolean; keyLoc?: string }[] = [];
  out.push({ label: 'NUL', value: BAD_TEXT[0], edge: true });
  out.push({ label: 'lone high surrogate', value: BAD_TEXT[1], edge: true });
  out.push({ label: 'lone low surrogate', value: BAD_TEXT[2], edge: true });
  out.push({ label: 'object 40 deep', value: deep(40, 'object'), edge: true });
  out.push({ label: 'array 5000 deep', value: deep(5000, 'array'), edge: true });
  out.push({ label: 'NUL key', value: { 'k\u0000': 1 }, edge: true, keyLoc: 'k\u0000' });
  out.push({ label: 'surrogate key', value: { '\ud83c': 1 }, edge: true, keyLoc: '\ud83c' });
  out.push({ label: 'NUL in an array in an object', value: { list: ['ok', { x: 'a\u0000' }] }, edge: true });
  const wrong = [42, 1.5, -1, 'fuzz', true, null, [], {}, [1, 'a'], { a: 1 }, 1e308, 'x'.repeat(70_000)].filter((v) => !accepts(s, v));
  for (const v of rng.shuffle(wrong).slice(0, 4)) out.push({ label: `wrong value ${jsonText(v).slice(0, 20)}`, value: v, edge: false });
  if (s.maxLength !== undefined) out.push({ label: 'too long', value: 'a'.repeat(s.maxLength + 1), edge: false });
  if (s.pattern !== undefined) out.push({ label: 'pattern', value: ' !bad/ value', edge: false });
  if (s.maxItems !== undefined && s.items) out.push({ label: 'too many items', value: Array.from({ length: s.maxItems + 1 }, () => example(s.items!, rng)), edge: false });
  if (s.additionalProperties === false && s.properties) out.push({ label: 'unknown field', value: { ...(example(s, rng) as object), fuzz_unknown: 1 }, edge: false });
  return out.filter((c) => c.edge || !accepts(s, c.value));
}

const BAD_IDS: { label: string; value: UrlValue; status?: number[] }[] = [
  { label: 'NUL id', value: { raw: 'a%00b' }, status: [422] },
  { label: 'UTF-8 of a lone surrogate', value: { raw: '%ED%A0%80' }, status: [400] },
  { label: 'malformed percent-encoding', value: { raw: '%E0%A4%A' }, status: [400] },
  { label: 'invalid UTF-8', value: { raw: '%FF%FE' }, status: [400] },
  { label: 'unknown uuid', value: '00000000-0000-4000-8000-000000000000' },
  { label: 'not an id', value: 'not-an-id' },
  { label: 'emoji', value: '🎮' },
  { label: 'dot segments', value: { raw: '..%2F..%2Fetc' } },
  { label: 'quote', value: "' OR 1=1 --" },
  { label: '300 characters', value: 'a'.repeat(300) },
  { label: 'URL over 8 KiB', value: 'a'.repeat(9000), status: [414] },
];

const BAD_QUERY: { label: string; value: UrlValue | undefined; edge?: boolean; status?: number[] }[] = [
  { label: 'NUL', value: { raw: 'a%00' }, edge: true, status: [422] },
  { label: 'malformed percent-encoding', value: { raw: '%E0%A4%A' }, status: [400] },
  { label: 'UTF-8 of a lone surrogate', value: { raw: '%ED%A0%80' }, status: [400] },
  { label: 'invalid UTF-8', value: { raw: '%FF' }, status: [400] },
  { label: 'a lone percent sign', value: { raw: '100%' }, status: [400] },
  { label: 'empty', value: '' },
  { label: 'not a number', value: 'abc' },
  { label: 'fraction', value: '1.5' },
  { label: 'negative', value: '-5' },
  { label: 'huge number', value: '99999999999999999999999' },
  { label: 'not in the enum', value: 'not-a-value' },
  { label: 'URL over 8 KiB', value: 'q'.repeat(9000), status: [414] },
];

export interface RequestBase {
  /** A well-formed request of the operation (fixtures in path, required query and headers; an example body). */
  base(label: string): FuzzCase;
  baseBody: unknown;
  jsonBody(json: unknown): FuzzCase['body'];
}

export function requestBase(op: Operation, fx: Fixtures, rng: Prng): RequestBase {
  const pathParams: Record<string, UrlValue> = {};
  const query: [string, UrlValue][] = [];
  const headers: Record<string, string> = {};
  if (op.auth === 'apiKey') headers['api-key'] = fx.apiKey;
  if (op.auth === 'admin') headers.authorization = `Bearer ${fx.adminToken}`;
  for (const p of op.params) {
    const value = fx.valueOf(op, p) ?? String(example(p.schema, rng));
    if (p.in === 'path') pathParams[p.name] = value;
    else if (p.in === 'query' && (p.required || fx.valueOf(op, p) !== undefined)) query.push([p.name, value]);
    else if (p.in === 'header' && p.name === 'x-player-id') headers[p.name] = fx.playerId;
  }
  const baseBody = op.body?.contentType === 'application/json' ? example(op.body.schema, rng) : undefined;
  const jsonBody = (json: unknown) => ({ bytes: jsonText(json), contentType: 'application/json', json });
  const base = (label: string): FuzzCase => ({
    op, label, pathParams: { ...pathParams }, query: query.map(([k, v]) => [k, v] as [string, UrlValue]), headers: { ...headers },
    body: baseBody !== undefined ? jsonBody(baseBody) : undefined,
  });
  return { base, baseBody, jsonBody };
}

export function casesFor(op: Operation, fx: Fixtures, rng: Prng): FuzzCase[] {
  const write = op.method !== 'GET';
  const { base, baseBody, jsonBody } = requestBase(op, fx, rng);
  const pathParams = base('').pathParams;
  const headers = base('').headers;
  const cases: FuzzCase[] = [];

  // The game API: a real token lives only in a game's environment, and a valid one may stop its server,
  // which the fuzz must not change; only its credentials are fuzzed here (test/e2e/game-api.ts covers the rest).
  if (op.auth === 'serverToken') {
    const unknown = `spt_00000000-0000-4000-8000-000000000000_${'A'.repeat(43)}`;
    for (const [label, value] of [['no credentials', undefined], ['malformed token', 'Bearer spt_wrong'], ['unknown token', `Bearer ${unknown}`], ['project key', `Bearer ${fx.apiKey}`]] as const) {
      const c = base(label);
      if (value !== undefined) c.headers.authorization = value;
      c.expect = { status: [401] };
      cases.push(c);
    }
    return cases;
  }

  // Credentials.
  if (op.auth !== 'none') {
    const name = op.auth === 'admin' ? 'authorization' : 'api-key';
    const missing = base('no credentials');
    delete missing.headers[name];
    missing.expect = { status: [401] };
    const wrong = base('wrong credentials');
    wrong.headers[name] = op.auth === 'admin' ? 'Bearer wrong' : 'pf_wrong';
    wrong.expect = { status: [401] };
    cases.push(missing, wrong);
  }

  // Path ids.
  for (const name of Object.keys(pathParams)) {
    for (const bad of BAD_IDS) {
      const c = base(`path ${name}: ${bad.label}`);
      c.pathParams[name] = bad.value;
      if (bad.status) c.expect = { status: bad.status, loc: bad.status[0] === 422 ? ['path', name] : undefined };
      cases.push(c);
    }
  }

  // Query parameters (and one unknown one holding a NUL, which the edge refuses on every route).
  for (const p of op.params.filter((x) => x.in === 'query')) {
    for (const bad of BAD_QUERY) {
      const value = typeof bad.value === 'string' ? bad.value : undefined;
      const invalid = bad.edge || bad.status !== undefined || (typeof bad.value === 'string' && !acceptsQuery(p.schema, value));
      if (write && !invalid) continue;
      const c = base(`query ${p.name}: ${bad.label}`);
      c.query = [...c.query.filter(([k]) => k !== p.name), [p.name, bad.value!]];
      if (bad.status) c.expect = { status: bad.status, loc: bad.status[0] === 422 ? ['query', p.name] : undefined };
      cases.push(c);
    }
    const twice = base(`query ${p.name}: given twice`);
    twice.query = [...twice.query.filter(([k]) => k !== p.name), [p.name, 'a'], [p.name, 'b']];
    if (!write || p.schema.type !== 'array') cases.push(twice);
    if (p.required) {
      const missing = base(`query ${p.name}: missing`);
      missing.query = missing.query.filter(([k]) => k !== p.name);
      // A signed URL (no credentials but the query) is 403 whatever is wrong with it: it tells nothing.
      missing.expect = op.auth === 'none' ? undefined : { status: [422], loc: ['query', p.name] };
      cases.push(missing);
    }
  }
  const nulKey = base('query: an unknown parameter holding NUL');
  nulKey.query = [...nulKey.query, ['fuzz_unknown', { raw: '%00' }]];
  nulKey.expect = { status: [422], loc: ['query', 'fuzz_unknown'] };
  cases.push(nulKey);

  // The player header (the only header a route validates beside credentials).
  if ('x-player-id' in headers) {
    for (const [label, value] of [['empty', ''], ['129 characters', 'p'.repeat(129)], ['space', 'bad id'], ['latin-1', 'ÿþ'], ['slash', '../x']] as const) {
      const c = base(`header x-player-id: ${label}`);
      c.headers['x-player-id'] = value;
      c.expect = { status: [422], loc: ['header', 'x-player-id'] };
      cases.push(c);
    }
    const missing = base('header x-player-id: missing');
    delete missing.headers['x-player-id'];
    missing.expect = { status: [422], loc: ['header', 'x-player-id'] };
    cases.push(missing);
  }

  if (op.body) cases.push(...bodyCases(op, base, jsonBody, baseBody, rng));
  return cases;
}

function bodyCases(
  op: Operation, base: (label: string) => FuzzCase, jsonBody: (json: unknown) => FuzzCase['body'], baseBody: unknown, rng: Prng,
): FuzzCase[] {
  const schema = op.body!.schema;
  const json = op.body!.contentType === 'application/json';
  const cases: FuzzCase[] = [];
  const withBody = (label: string, body: FuzzCase['body'], expect?: FuzzCase['expect']) => {
    const c = base(label);
    c.body = body;
    c.expect = expect;
    cases.push(c);
  };
  if (!json) {
    // Uploads: a JSON body, a text body; the raw types themselves are for the upload tests. Every Content-Type
    // reaches an upload unparsed: a form without its file part is 422, a raw upload's (unknown) token 403.
    const refused = op.body!.contentType.startsWith('multipart/') ? { status: [422], loc: ['body', 'file'] } : { status: [403] };
    withBody('upload: JSON instead of the archive', jsonBody({ a: 'x\u0000' }), refused);
    withBody('upload: text', { bytes: 'zip?', contentType: 'text/plain' }, refused);
    return cases;
  }
  for (const text of ['{', '{"a":1,}', '[1,2', 'nul', '{"a":"\\x"}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']) {
    withBody(`invalid JSON ${text}`, { bytes: text, contentType: 'application/json' }, { status: [400] });
  }
  withBody('invalid UTF-8 bytes', { bytes: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), contentType: 'application/json' });
  // An empty JSON body is no body on the API (the hosted service's clients send one): refused only where a body
  // is required. The legacy listener parses it as JSON: 400.
  if (op.listener === 'legacy') withBody('empty JSON body', { bytes: '', contentType: 'application/json' }, { status: [400] });
  else if (op.body!.required) withBody('empty JSON body', { bytes: '', contentType: 'application/json' }, { status: [422] });
  for (const [contentType, bytes] of [['text/plain', '{"a":1}'], ['application/xml', '<a/>'], ['application/x-www-form-urlencoded', 'name=a'],
    ['multipart/form-data; boundary=x', '--x--'], ['application/zip', 'PK'], ['application/octet-stream', '{}']]) {
    withBody(`content type ${contentType}`, { bytes, contentType }, { status: [415] });
  }
  for (const root of [[], 1, 'text', null, true, [{}]]) if (!accepts(schema, root)) withBody(`body ${JSON.stringify(root)}`, jsonBody(root), { status: [422] });
  if (op.body!.required) withBody('no body', undefined, { status: [422] });
  withBody('body over 1 MiB', { bytes: `{"a":"${'x'.repeat(BODY_LIMIT + 10)}"}`, contentType: 'application/json' }, { status: [413] });
  const deepText = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  withBody('body 100,000 levels deep', { bytes: deepText, contentType: 'application/json', json: JSON.parse(deepText) }, { status: [422], loc: ['body', 0] });
  withBody('duplicate key, the last with NUL', { bytes: '{"fuzz":"a","fuzz":"\\u0000"}', contentType: 'application/json' }, { status: [422], loc: ['body', 'fuzz'] });

  for (const { at, schema: s } of positions(schema)) {
    if (at.length === 0) continue;
    for (const bad of badValues(s, rng)) {
      const body = setAt(baseBody, at, bad.value);
      if (!bad.edge && (accepts(schema, body) || breaksEdgeRule(body))) continue;
      const where = at.map(String).join('.');
      const loc = bad.label.startsWith('NUL in an array')
        ? ['body', ...at, 'list', 1, 'x']
        : bad.keyLoc !== undefined ? ['body', ...at, bad.keyLoc] : bad.label.includes('deep') ? ['body', at[0]] : ['body', ...at];
      withBody(`body ${where}: ${bad.label}`, jsonBody(body), bad.edge ? { status: [422], loc } : undefined);
    }
  }
  return cases;
}
