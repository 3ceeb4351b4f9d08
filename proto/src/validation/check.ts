// Checking a value against a contract class: class-transformer builds the instance (query numbers and
// flags read from text), class-validator checks it, and its errors become the API's 422 issues
// ({loc, msg, type}, pydantic-style types as the interface specifies).
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { ValidationIssue } from '@spawnpoint/domain';
import { fieldsOf, passesFast, type ContractClass } from './fields';

/** Constraints that say the value has the wrong type: reported alone (the others cannot apply). */
const TYPE_RULES: Record<string, string> = {
  isString: 'string_type', isInt: 'int_type', isNumber: 'number_type', isBoolean: 'boolean_type', isArray: 'array_type',
  isJsonObject: 'object_type', isPlainObject: 'object_type', nestedValidation: 'object_type',
};
const RULE_TYPES: Record<string, string> = {
  minLength: 'string_too_short', maxLength: 'string_too_long', min: 'greater_than_equal', max: 'less_than_equal',
  arrayMaxSize: 'too_long', matches: 'string_pattern_mismatch', isHttpUrl: 'string_pattern_mismatch', isIn: 'enum', boolParsing: 'bool_parsing',
};

function collect(errors: ValidationError[], loc: (string | number)[], parent: unknown, out: ValidationIssue[]): void {
  for (const e of errors) {
    const at = [...loc, Array.isArray(parent) ? Number(e.property) : e.property];
    const c = e.constraints ?? {};
    const names = Object.keys(c);
    if (c.whitelistValidation) {
      out.push({ loc: at, msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
      continue;
    }
    if (names.length > 0) {
      if (e.value === undefined) {
        out.push({ loc: at, msg: 'Field required', type: 'missing' });
        continue;
      }
      const typeRule = names.find((n) => n in TYPE_RULES);
      if (typeRule) {
        // An integer field given a non-number is a number_type error; given 1.5, an int_type one.
        const type = typeRule === 'isInt' && (typeof e.value !== 'number' || Number.isNaN(e.value)) ? 'number_type' : TYPE_RULES[typeRule];
        out.push({ loc: at, msg: typeRule === 'nestedValidation' ? 'must be an object' : c[typeRule], type });
        continue;
      }
      for (const n of names) {
        if (n === 'noArrayItems') {
          (e.value as unknown[]).forEach((item, i) => Array.isArray(item) && out.push({ loc: [...at, i], msg: c[n], type: 'object_type' }));
        } else {
          out.push({ loc: n === 'objectRule' ? loc : at, msg: c[n], type: RULE_TYPES[n] ?? 'value_error' });
        }
      }
    }
    // Items that are arrays were reported above (noArrayItems): their contents are not looked into.
    const children = c.noArrayItems ? e.children?.filter((child) => !Array.isArray((e.value as unknown[])[Number(child.property)])) : e.children;
    if (children?.length) collect(children, at, e.value, out);
  }
}

/** The instance as plain data: only the fields that have a value (class fields start out undefined). */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = plain(x);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const allOptional = new Map<object, boolean>();
function isAllOptional(cls: object): boolean {
  let all = allOptional.get(cls);
  if (all === undefined) allOptional.set(cls, (all = fieldsOf(cls).every(([, f]) => !f.required)));
  return all;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/**
 * `input` against `cls`, issues rooted at `loc`. strict: unknown fields are refused (HTTP inputs);
 * otherwise they are let through (bus messages: a newer sender may add a field).
 */
export function checkContract<T extends object>(cls: ContractClass<T>, input: unknown, loc: (string | number)[], strict = true): Checked<T> {
  if (!isObject(input)) return { ok: false, issues: [{ loc, msg: 'Input should be an object', type: 'object_type' }] };
  // Nothing given and nothing required (most GET queries): nothing to check, nothing to build.
  if (isAllOptional(cls) && Object.keys(input).length === 0) return { ok: true, value: {} as T };
  // Fields that all pass their predicates (most inputs): accepted as given.
  if (passesFast(cls, input, strict) === true) return { ok: true, value: { ...input } as T };
  return fullCheck(cls, input, loc, strict);
}

/** class-transformer + class-validator, whatever the input (the fast path's reference; exported for its test). */
export function fullCheck<T extends object>(cls: ContractClass<T>, input: Record<string, unknown>, loc: (string | number)[], strict: boolean): Checked<T> {
  const instance = plainToInstance(cls, input);
  const errors = validateSync(instance, { whitelist: strict, forbidNonWhitelisted: strict, forbidUnknownValues: false, validationError: { target: false } });
  if (errors.length === 0) return { ok: true, value: plain(instance) as T };
  const issues: ValidationIssue[] = [];
  collect(errors, loc, input, issues);
  return { ok: false, issues };
}
