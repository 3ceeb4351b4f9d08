// The field decorators of every contract class. Each one is class-validator (and class-transformer)
// decorators plus the field's JSON Schema, recorded once: validation and the OpenAPI document read the
// same declaration. Constraint names are the ones issues.ts maps to the 422 `type` values.
import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import {
  Allow, ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min,
  ValidateBy, ValidateIf, ValidateNested,
} from 'class-validator';

export type JsonSchema = Record<string, unknown>;
export type ContractClass<T = object> = new () => T;
/**
 * `fast`: the field's whole check as one predicate (`strict`: unknown fields of nested objects refused),
 * for every field that does not transform its value. A class whose fields all have one is accepted
 * without class-validator when the input passes (check.ts); anything else, and every refusal, goes
 * through class-validator for its report. A predicate may refuse what class-validator accepts (that
 * only costs the slow path), never the other way round.
 */
export type FastTest = (v: unknown, strict: boolean) => boolean;
export interface FieldSpec { schema: JsonSchema; required: boolean; fast?: FastTest }

interface Presence { optional?: boolean; nullable?: boolean; description?: string }

const specs = new Map<object, Map<string, FieldSpec>>();
const allFields = new Map<object, [string, FieldSpec][]>();

/** The class and the classes it extends, the base first. */
function classChain(cls: object): object[] {
  const chain: object[] = [];
  for (let c: object | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c);
  return chain;
}

/** The documented fields of a contract class, inherited ones first (cached: classes do not change). */
export function fieldsOf(cls: object): [string, FieldSpec][] {
  let out = allFields.get(cls);
  if (out) return out;
  const merged = new Map<string, FieldSpec>();
  for (const c of classChain(cls)) for (const [k, v] of specs.get(c) ?? []) merged.set(k, v);
  out = [...merged];
  allFields.set(cls, out);
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface FastPlan { fields: Map<string, FastTest>; extras: [string, ObjectTest][] }
const fastPlans = new Map<object, FastPlan | null>();
/**
 * Each field's predicate and the extra rules, or null (cached): when a field has no predicate, or the
 * class gives a field a default value (class-transformer's instance has it; the input as given would not).
 */
function fastPlan(cls: object): FastPlan | null {
  let plan = fastPlans.get(cls);
  if (plan !== undefined) return plan;
  const fields = fieldsOf(cls);
  const defaults = Object.values(new (cls as new () => object)()).some((v) => v !== undefined);
  const extras = classChain(cls).flatMap((c) => extraRules.get(c) ?? []);
  plan = !defaults && fields.every(([, f]) => f.fast) ? { fields: new Map(fields.map(([k, f]) => [k, f.fast!])), extras } : null;
  fastPlans.set(cls, plan);
  return plan;
}

/** true: `input` passes every field of `cls` (and names no unknown field when strict); false: it may not; null: no fast check. */
export function passesFast(cls: object, input: Record<string, unknown>, strict: boolean): boolean | null {
  const plan = fastPlan(cls);
  if (!plan) return null;
  if (strict) for (const k in input) if (!plan.fields.has(k)) return false;
  for (const [k, test] of plan.fields) if (!test(input[k], strict)) return false;
  for (const [k, test] of plan.extras) if (!test(input[k], input)) return false;
  return true;
}

type ObjectTest = (value: unknown, object: Record<string, unknown>) => boolean;
/** Rules put on a field beside its kind (Rule, ObjectRule): the fast path checks them too. */
const extraRules = new Map<object, [string, ObjectTest][]>();

function rule(name: string, test: ObjectTest, message: string): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: (v, args) => test(v, args!.object as Record<string, unknown>), defaultMessage: () => message } });
}
/** A custom constraint: `name` is what issues.ts maps to a 422 type (value_error unless listed there). */
export function Rule(name: string, test: ObjectTest, message: string): PropertyDecorator {
  return (target, key) => {
    extraRules.set(target.constructor, [...(extraRules.get(target.constructor) ?? []), [String(key), test]]);
    rule(name, test, message)(target, key);
  };
}
/** A rule about the object holding the field: reported at the object's loc, not the field's. */
export const ObjectRule = (test: (object: Record<string, unknown>) => boolean, message: string) => Rule('objectRule', (_, o) => test(o), message);

function field(schema: JsonSchema, o: Presence, decorators: (PropertyDecorator | undefined)[], test?: FastTest, nullPasses = !!o.nullable): PropertyDecorator {
  return (target, key) => {
    const own = specs.get(target.constructor) ?? new Map<string, FieldSpec>();
    specs.set(target.constructor, own);
    const s = o.nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
    const fast = test && ((v: unknown, strict: boolean) => (v === undefined ? !!o.optional : v === null ? nullPasses : test(v, strict)));
    own.set(String(key), { schema: o.description ? { ...s, description: o.description } : s, required: !o.optional, fast });
    // optional: may be absent (undefined); nullable: may be null; anything else is checked.
    const presence = o.optional && o.nullable ? IsOptional()
      : o.optional ? ValidateIf((_, v) => v !== undefined)
        : o.nullable ? ValidateIf((_, v) => v !== null) : undefined;
    for (const d of [presence, ...decorators]) d?.(target, key);
  };
}

export interface StrOpts extends Presence { min?: number; max?: number; pattern?: RegExp; msg?: string; format?: string }
export function Str(o: StrOpts = {}): PropertyDecorator {
  const schema: JsonSchema = { type: 'string' };
  if (o.min !== undefined) schema.minLength = o.min;
  if (o.max !== undefined) schema.maxLength = o.max;
  if (o.pattern) schema.pattern = o.pattern.source;
  if (o.format) schema.format = o.format;
  const { min, max, pattern } = o;
  const long = (v: unknown) => typeof v !== 'string' || max === undefined || v.length <= max;
  const short = (v: unknown) => typeof v !== 'string' || min === undefined || v.length >= min;
  return field(schema, o, [
    IsString(),
    // Lengths in UTF-16 code units (class-validator's own MinLength/MaxLength count a surrogate pair as one).
    min !== undefined ? rule('minLength', short, min === 1 ? 'must not be empty' : `must be at least ${min} characters`) : undefined,
    max !== undefined ? rule('maxLength', long, `must be at most ${max} characters`) : undefined,
    pattern ? Matches(pattern, { message: o.msg ?? `must match ${pattern.source}` }) : undefined,
  ], (v) => typeof v === 'string' && short(v) && long(v) && (!pattern || pattern.test(v)));
}

const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
export const UuidField = (o: Presence = {}) => Str({ ...o, pattern: UUID, msg: 'must be a UUID', format: 'uuid' });

/** Query strings arrive as text: `coerce` reads a number from one (as Number() does: '' is 0). */
export interface NumOpts extends Presence { min?: number; max?: number; coerce?: boolean }
function numeric(int: boolean, o: NumOpts): PropertyDecorator {
  const schema: JsonSchema = { type: int ? 'integer' : 'number' };
  if (o.min !== undefined) schema.minimum = o.min;
  if (o.max !== undefined) schema.maximum = o.max;
  return field(schema, o, [
    o.coerce ? Transform(({ value }) => (typeof value === 'string' ? Number(value) : value)) : undefined,
    int ? IsInt({ message: 'must be an integer' }) : IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'must be a number' }),
    o.min !== undefined ? Min(o.min, { message: `must be at least ${o.min}` }) : undefined,
    o.max !== undefined ? Max(o.max, { message: `must be at most ${o.max}` }) : undefined,
  ], o.coerce ? undefined : (v) => typeof v === 'number' && (int ? Number.isInteger(v) : Number.isFinite(v))
    && (o.min === undefined || v >= o.min) && (o.max === undefined || v <= o.max));
}
export const Int = (o: NumOpts = {}) => numeric(true, o);
export const Num = (o: NumOpts = {}) => numeric(false, o);

export const Bool = (o: Presence = {}) => field({ type: 'boolean' }, o, [IsBoolean({ message: 'must be a boolean' })], (v) => typeof v === 'boolean');

export function Enum(values: readonly (string | number)[], o: Presence & { msg?: string } = {}): PropertyDecorator {
  return field({ ...(values.every((v) => typeof v === 'string') ? { type: 'string' } : {}), enum: [...values] }, o, [IsIn([...values], { message: o.msg ?? `must be one of ${values.join(', ')}` })], (v) => values.includes(v as string));
}
/** The words FastAPI (pydantic) reads as a boolean in a query string, case-insensitive. */
const TRUE_WORDS = ['true', '1', 'yes', 'on', 't', 'y'];
const FALSE_WORDS = ['false', '0', 'no', 'off', 'f', 'n'];
/** A query flag read as a boolean as FastAPI reads one (true/false/1/0/yes/no/on/off…, any case). */
export function Flag(o: Presence = {}): PropertyDecorator {
  const word = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v) as string;
  // Read into a boolean before the check; anything else stays as sent and fails it.
  return field({ type: 'boolean' }, o, [
    Transform(({ value }) => (TRUE_WORDS.includes(word(value)) ? true : FALSE_WORDS.includes(word(value)) ? false : value), { toClassOnly: true }),
    rule('boolParsing', (v) => typeof v === 'boolean', 'Input should be a valid boolean, unable to interpret input'),
  ]);
}

/** Any JSON object (Record<string, unknown>); `maxJson`: the most characters it may take as JSON. */
export function Json(o: Presence & { maxJson?: number } = {}): PropertyDecorator {
  return field({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} }, o, [
    rule('isJsonObject', isPlainObject, 'must be an object'),
    o.maxJson !== undefined ? rule('maxJson', (v) => !isPlainObject(v) || JSON.stringify(v).length <= o.maxJson!, `must be at most ${o.maxJson / 1024} KiB as JSON`) : undefined,
  ], (v) => isPlainObject(v) && (o.maxJson === undefined || JSON.stringify(v).length <= o.maxJson));
}

/** Any value (documented as such; checked by whoever reads it). */
export const AnyValue = (o: Presence = {}) => field({}, { ...o, nullable: false }, [Allow()], () => true, true);

/** A map of names to strings: keys match `key`, values at most `maxValue` characters, at most `maxEntries`. */
export function StrMap(o: Presence & { key: RegExp; keyMsg: string; maxValue: number; maxEntries: number }): PropertyDecorator {
  return field({ type: 'object', propertyNames: { type: 'string', pattern: o.key.source }, additionalProperties: { type: 'string', maxLength: o.maxValue } }, o, [
    rule('isJsonObject', isPlainObject, 'must be an object'),
    rule('mapKeys', (v) => !isPlainObject(v) || Object.keys(v).every((k) => o.key.test(k)), `every name ${o.keyMsg}`),
    rule('mapValues', (v) => !isPlainObject(v) || Object.values(v).every((x) => typeof x === 'string' && x.length <= o.maxValue), `every value must be a string of at most ${o.maxValue} characters`),
    rule('mapSize', (v) => !isPlainObject(v) || Object.keys(v).length <= o.maxEntries, `at most ${o.maxEntries} entries`),
  ], (v) => isPlainObject(v) && Object.keys(v).length <= o.maxEntries
    && Object.entries(v).every(([k, x]) => o.key.test(k) && typeof x === 'string' && x.length <= o.maxValue));
}

/** A nested contract object (checked field by field; unknown fields refused where the root refuses them). */
/**
 * A nested contract object. `pick` chooses its class from the object itself (a union by a discriminator
 * field); anything that is not an object keeps `cls` and fails 'must be an object' (class-transformer's own
 * discriminator would read the field of each item of an array, and throw on a null one).
 */
export function Nested(cls: () => ContractClass, o: Presence & { schema?: JsonSchema; pick?: (value: Record<string, unknown>) => ContractClass } = {}): PropertyDecorator {
  const { pick } = o;
  const type = pick ? Type((h) => {
    const v: unknown = h?.object[h.property];
    return isPlainObject(v) ? pick(v as Record<string, unknown>) : cls();
  }) : Type(cls);
  // A nested class chosen by `pick` is left to class-validator.
  return field(o.schema ?? { $nested: cls }, o, [rule('isPlainObject', isPlainObject, 'must be an object'), ValidateNested(), type],
    pick ? undefined : (v, strict) => isPlainObject(v) && passesFast(cls(), v, strict) === true);
}

/** An array of contract objects. */
export function NestedArray(cls: () => ContractClass, o: Presence & { max?: number } = {}): PropertyDecorator {
  const schema: JsonSchema = { type: 'array', items: { $nested: cls } };
  if (o.max !== undefined) schema.maxItems = o.max;
  return field(schema, o, [
    IsArray({ message: 'must be an array' }),
    o.max !== undefined ? ArrayMaxSize(o.max, { message: `must have at most ${o.max} items` }) : undefined,
    // class-validator walks an array item as a list of items: an array where an object belongs is refused
    // here (check.ts reports it at the item's index; other non-objects fail nestedValidation there).
    rule('noArrayItems', (v) => !Array.isArray(v) || !v.some(Array.isArray), 'must be an object'),
    ValidateNested({ each: true }), Type(cls),
  ], (v, strict) => Array.isArray(v) && (o.max === undefined || v.length <= o.max) && v.every((item) => isPlainObject(item) && passesFast(cls(), item, strict) === true));
}

/** An array of plain values (strings, unknown objects): only the array itself is checked here. */
export function List(items: JsonSchema, o: Presence & { max?: number; each?: (v: unknown) => boolean; eachMsg?: string } = {}): PropertyDecorator {
  return field({ type: 'array', items, ...(o.max !== undefined ? { maxItems: o.max } : {}) }, o, [
    IsArray({ message: 'must be an array' }),
    o.max !== undefined ? ArrayMaxSize(o.max, { message: `must have at most ${o.max} items` }) : undefined,
    o.each ? rule('eachItem', (v) => !Array.isArray(v) || v.every(o.each!), o.eachMsg ?? 'an item has the wrong type') : undefined,
  ], (v) => Array.isArray(v) && (o.max === undefined || v.length <= o.max) && (!o.each || v.every(o.each)));
}

/** A field with a custom rule and a schema given by hand (unions and the like). */
export function Custom(schema: JsonSchema, r: { name: string; test: (v: unknown) => boolean; msg: string }, o: Presence = {}): PropertyDecorator {
  return field(schema, o, [rule(r.name, r.test, r.msg)], r.test);
}

/** An http(s) URL of at most 2048 characters. */
export function HttpUrl(o: Presence = {}): PropertyDecorator {
  const url = (v: unknown) => {
    try { return typeof v === 'string' && /^https?:$/.test(new URL(v).protocol); } catch { return false; }
  };
  return field({ type: 'string', format: 'uri', maxLength: 2048 }, o, [
    IsString(), MaxLength(2048, { message: 'must be at most 2048 characters' }), rule('isHttpUrl', url, 'must be an http or https URL'),
  ], (v) => typeof v === 'string' && v.length <= 2048 && url(v));
}

/** The JSON Schema of a contract class (nested classes inlined: the fuzzer and readers need no $ref). */
export function schemaOf(cls: object, strict = true): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [k, f] of fieldsOf(cls)) {
    properties[k] = inline(f.schema, strict);
    if (f.required) required.push(k);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), ...(strict ? { additionalProperties: false } : {}) };
}

function inline(s: JsonSchema, strict: boolean): JsonSchema {
  if (typeof s.$nested === 'function') {
    const { $nested, ...rest } = s;
    return { ...schemaOf(($nested as () => object)(), strict), ...rest };
  }
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    out[k] = Array.isArray(v) ? v.map((x) => (isPlainObject(x) ? inline(x, strict) : x)) : isPlainObject(v) && (k === 'items' || k === 'additionalProperties') ? inline(v, strict) : v;
  }
  return out;
}
