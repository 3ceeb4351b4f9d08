// Just enough JSON Schema (as zod's toJSONSchema writes it in the gateway's OpenAPI document) for the fuzzer:
// a valid example of a schema, and a check that errs on the side of "valid" (so a case the fuzzer sends as
// invalid really is invalid; an unsure case is dropped rather than sent as a write that might succeed).
import { Prng } from './prng';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => (typeof a !== 'object' || a === null ? a === b : typeof b === 'object' && b !== null && JSON.stringify(a) === JSON.stringify(b));

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'string': return typeof v === 'string';
    case 'integer': return Number.isInteger(v);
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    case 'object': return isObject(v);
    case 'array': return Array.isArray(v);
    default: return true;
  }
}

/** Does the value satisfy the schema? Unknown keywords count as satisfied. */
export function accepts(s: JsonSchema, v: unknown): boolean {
  if (Object.keys(s).every((k) => k === '$schema' || k === 'description' || k === 'default')) return true;
  if (s.anyOf && !s.anyOf.some((b) => accepts(b, v))) return false;
  if (s.oneOf && !s.oneOf.some((b) => accepts(b, v))) return false;
  if (s.allOf && !s.allOf.every((b) => accepts(b, v))) return false;
  if ('const' in s && !same(s.const, v)) return false;
  if (s.enum && !s.enum.some((e) => same(e, v))) return false;
  if (s.type !== undefined && !(Array.isArray(s.type) ? s.type : [s.type]).some((t) => typeMatches(t, v))) return false;
  if (typeof v === 'string') {
    if (s.minLength !== undefined && v.length < s.minLength) return false;
    if (s.maxLength !== undefined && v.length > s.maxLength) return false;
    if (s.pattern !== undefined && !new RegExp(s.pattern).test(v)) return false;
  }
  if (typeof v === 'number') {
    if (s.minimum !== undefined && v < s.minimum) return false;
    if (s.maximum !== undefined && v > s.maximum) return false;
    if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) return false;
    if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) return false;
  }
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) return false;
    if (s.maxItems !== undefined && v.length > s.maxItems) return false;
    if (s.items && !v.every((x) => accepts(s.items!, x))) return false;
  }
  if (isObject(v)) {
    for (const r of s.required ?? []) if (!(r in v)) return false;
    for (const [k, x] of Object.entries(v)) {
      if (s.propertyNames && !accepts(s.propertyNames, k)) return false;
      const prop = s.properties?.[k];
      if (prop) {
        if (!accepts(prop, x)) return false;
      } else if (s.additionalProperties === false && s.properties) {
        return false;
      } else if (isObject(s.additionalProperties) && !accepts(s.additionalProperties, x)) {
        return false;
      }
    }
  }
  return true;
}

const STRINGS = ['fuzz', 'a', 'x1', 'A1', '1', '12345', 'abcd', 'default', 'fuzz-1', 'http://127.0.0.1:9/x'];

/** A valid value of the schema (a best effort: semantic rules beyond the schema are not known here). */
export function example(s: JsonSchema, rng: Prng, depth = 0): unknown {
  if ('const' in s) return s.const;
  if (s.enum) return rng.pick(s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const nonNull = branches.filter((b) => b.type !== 'null');
    return example(rng.pick(nonNull.length > 0 ? nonNull : branches), rng, depth);
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'string': {
      const fits = STRINGS.filter((c) => accepts({ ...s, format: undefined }, c));
      if (fits.length > 0) return s.format === 'uri' ? 'http://127.0.0.1:9/x' : rng.pick(fits);
      return 'a'.repeat(Math.max(s.minLength ?? 1, 1));
    }
    case 'integer':
    case 'number': return Math.max(s.minimum ?? 1, Math.min(s.maximum ?? 1, 1));
    case 'boolean': return false;
    case 'null': return null;
    case 'array': {
      if (!s.items || depth > 4 || (s.maxItems ?? 1) < 1) return [];
      return Array.from({ length: Math.max(s.minItems ?? 1, 1) }, () => example(s.items!, rng, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(s.properties ?? {})) {
        if ((s.required ?? []).includes(k) || (depth < 3 && rng.chance(0.5))) out[k] = example(p, rng, depth + 1);
      }
      return out;
    }
    default: return {};
  }
}

/** The schema's own object/array structure: where a value can be put, with the schema that applies there. */
export function positions(s: JsonSchema, depth = 0, at: (string | number)[] = []): { at: (string | number)[]; schema: JsonSchema }[] {
  const out = [{ at, schema: s }];
  if (depth >= 4) return out;
  const objectBranch = [s, ...(s.anyOf ?? []), ...(s.oneOf ?? [])].find((b) => b.properties);
  for (const [k, p] of Object.entries(objectBranch?.properties ?? {})) out.push(...positions(p, depth + 1, [...at, k]));
  const arrayBranch = [s, ...(s.anyOf ?? [])].find((b) => b.items);
  if (arrayBranch?.items) out.push(...positions(arrayBranch.items, depth + 1, [...at, 0]));
  return out;
}
