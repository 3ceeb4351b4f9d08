// Input limits at the edge (decisions.md "Input limits"): every string of a request (values and object
// keys, at any depth, in path, query and body) is storable text, and every JSON value in a body is at most
// MAX_JSON_DEPTH levels deep. It runs before any schema, recursive code (JSON.stringify, zod, Prisma) or
// service sees the request, so the walk itself is iterative: a value nested 100,000 deep is one 422.
// Headers need no walk: Node's HTTP parser refuses NUL and control bytes in them and decodes them as
// latin1, which has no surrogates.
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { unstorableText } from '@spawnpoint/platform';
import { validationError, ValidationIssue, Where } from './validation';

/** Levels of a JSON value: `{}` is 1, `{"a": {}}` is 2. A body's top-level fields are the values. */
export const MAX_JSON_DEPTH = 32;
/** Enough for a client to see what is wrong without a hostile body growing the answer. */
const MAX_ISSUES = 20;

interface Frame { value: unknown; key: string | number | null; parent: Frame | null; depth: number }

function locOf(frame: Frame, where: Where): (string | number)[] {
  const loc: (string | number)[] = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) loc.push(f.key);
  return [where, ...loc.reverse()];
}

/** An object to walk: parsed JSON, query and params objects (whatever their prototype); not streams or buffers. */
const isWalkable = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !(v instanceof Readable) && !Buffer.isBuffer(v) && !ArrayBuffer.isView(v) && !(v instanceof Date);

/** The issue of a string that cannot be stored; its loc is built only then (most strings are fine). */
function textIssue(s: string, loc: () => (string | number)[], what: string): ValidationIssue | null {
  const problem = unstorableText(s);
  if (problem === null) return null;
  return problem === 'nul'
    ? { loc: loc(), msg: `${what} must not contain NUL (\\u0000)`, type: 'string_unicode' }
    : { loc: loc(), msg: `${what} must be valid Unicode (it holds a lone surrogate)`, type: 'string_unicode' };
}

/**
 * The issues of one part of a request (path params, query or parsed JSON body). Depth is counted from the
 * part's top-level fields, so `custom_data` may nest 32 levels. Streams and buffers (uploads) are not walked.
 */
export function inputIssues(part: unknown, where: Where): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const tooDeep = new Set<string | number>();
  const stack: Frame[] = [{ value: part, key: null, parent: null, depth: 0 }];
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const frame = stack.pop()!;
    const { value, depth } = frame;
    if (typeof value === 'string') {
      const issue = textIssue(value, () => locOf(frame, where), 'string');
      if (issue) issues.push(issue);
      continue;
    }
    const isArray = Array.isArray(value);
    if (!isArray && !isWalkable(value)) continue;
    if (depth > MAX_JSON_DEPTH) {
      // One issue per top-level field, at that field: the value is what is too deep.
      const top = locOf(frame, where).slice(0, 2);
      if (!tooDeep.has(top[1] ?? '')) {
        tooDeep.add(top[1] ?? '');
        issues.push({ loc: top, msg: `JSON value nested more than ${MAX_JSON_DEPTH} levels deep`, type: 'value_error' });
      }
      continue;
    }
    // Children are pushed in reverse so that issues come out in document order.
    if (isArray) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: frame, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      const issue = textIssue(key, () => [...locOf(frame, where), key], 'key');
      if (issue) issues.push(issue);
    }
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: value[keys[i]], key: keys[i], parent: frame, depth: depth + 1 });
  }
  return issues.slice(0, MAX_ISSUES);
}

/** Throws the spec's 422 when the request's path params, query or JSON body break the input limits (or the body is `null`). */
export function checkRequestInputs(req: Pick<FastifyRequest, 'params' | 'query' | 'body'>): void {
  const issues = [...inputIssues(req.params, 'path'), ...inputIssues(req.query, 'query'), ...inputIssues(req.body, 'body')];
  // JSON `null` is a body, and never a valid one: it must not read as "no body" (which is `{}`).
  if (req.body === null) issues.push({ loc: ['body'], msg: 'Input should be a JSON object, not null', type: 'dict_type' });
  if (issues.length > 0) throw validationError(issues.slice(0, MAX_ISSUES));
}
