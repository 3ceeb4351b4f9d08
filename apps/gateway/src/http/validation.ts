// Request validation with zod, reported in the spec's 422 shape:
// detail: [{loc: ["body"|"query"|"path"|"header", field, ...], msg, type}].
import { z } from 'zod';
import type { ValidationIssue } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';

export type { ValidationIssue };
export type Where = 'body' | 'query' | 'path' | 'header';

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let v: unknown = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function typeOf(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (valueAt(input, issue.path) === undefined) return 'missing';
      return `${issue.expected}_type`;
    case 'too_small': return issue.origin === 'string' ? 'string_too_short' : issue.origin === 'array' ? 'too_short' : 'greater_than_equal';
    case 'too_big': return issue.origin === 'string' ? 'string_too_long' : issue.origin === 'array' ? 'too_long' : 'less_than_equal';
    case 'invalid_value': return 'enum';
    case 'invalid_format': return 'string_pattern_mismatch';
    case 'unrecognized_keys': return 'extra_forbidden';
    default: return 'value_error';
  }
}

export function toIssues(error: z.ZodError, where: Where, input: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ loc: [where, ...path, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      continue;
    }
    const type = typeOf(issue, input);
    out.push({ loc: [where, ...path], msg: type === 'missing' ? 'Field required' : issue.message, type });
  }
  return out;
}

export function validationError(detail: ValidationIssue[]): RemoteError {
  return new RemoteError({ error: 'Validation error', status: 422, detail });
}

/**
 * Parse or throw the spec's 422. A request without a body reads as `{}`, so a body whose fields are all
 * optional may be left out (the OpenAPI document says so); a JSON `null` body never gets here (input limits).
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown, where: Where): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw validationError(toIssues(result.error, where, input));
}
