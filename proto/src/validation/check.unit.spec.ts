// The 422 issues a contract gives (types as the interface names them), and the fast path: for a class
// of simple fields it must accept exactly what class-validator accepts.
import * as proto from '../index';
import { AdminLobbyRequest, GetServerRequest, ListServersQuery, PlayerIdHeader, ServerIdParams, StartServerBody, TargetPlayerBody } from '../index';
import { checkContract, fullCheck } from './check';
import { fieldsOf, passesFast, type ContractClass, type JsonSchema } from './fields';

const issues = (cls: ContractClass, input: unknown) => {
  const r = checkContract(cls, input, ['body']);
  return r.ok ? [] : r.issues.map((i) => [i.loc, i.type]);
};

describe('422 issues', () => {
  it('names missing fields, wrong types and broken constraints at their loc', () => {
    expect(issues(StartServerBody, { region: 'eu-west' })).toEqual([[['body', 'name'], 'missing']]);
    expect(issues(StartServerBody, { name: 7, region: 'mars' })).toEqual([[['body', 'name'], 'string_type'], [['body', 'region'], 'enum']]);
    expect(issues(StartServerBody, { name: 'x'.repeat(129), region: 'eu-west', ttl: 0, version: 1.5 }))
      .toEqual([[['body', 'name'], 'string_too_long'], [['body', 'version'], 'int_type'], [['body', 'ttl'], 'greater_than_equal']]);
    expect(issues(StartServerBody, { name: 'x', region: 'eu-west', ttl: null, version_tag: 'bad tag', extra: 1 }))
      .toEqual([[['body', 'extra'], 'extra_forbidden'], [['body', 'version_tag'], 'string_pattern_mismatch']]);
    expect(issues(StartServerBody, { name: 'x', region: 'eu-west', port_configs: [{ name: 'game', internal_port: 70000, protocol: 'udp' }, 'x'] }))
      .toEqual([[['body', 'port_configs', 0, 'internal_port'], 'less_than_equal'], [['body', 'port_configs', 1], 'object_type']]);
    expect(issues(StartServerBody, { name: 'x', region: 'eu-west', auto_restart: null })).toEqual([[['body', 'auto_restart'], 'boolean_type']]);
  });

  it('reads query numbers from text, as Number() does', () => {
    expect(checkContract(ListServersQuery, { limit: '5' }, ['query'])).toEqual({ ok: true, value: { limit: 5 } });
    expect(issues(ListServersQuery, { limit: 'abc' })).toEqual([[['body', 'limit'], 'number_type']]);
    expect(issues(ListServersQuery, { limit: '' })).toEqual([[['body', 'limit'], 'greater_than_equal']]);
    expect(issues(ListServersQuery, { limit: ['1', '2'] })).toEqual([[['body', 'limit'], 'number_type']]);
  });

  it('reads query flags as FastAPI reads booleans (true/false/1/0/yes/no/on/off/t/f/y/n, any case); anything else is bool_parsing', () => {
    const flag = (v: unknown) => checkContract(ListServersQuery, { include_launching: v }, ['query']);
    for (const yes of ['true', 'TRUE', 'True', '1', 'yes', 'Yes', 'on', 'ON', 't', 'y']) expect(flag(yes)).toEqual({ ok: true, value: { include_launching: true } });
    for (const no of ['false', 'FALSE', '0', 'no', 'NO', 'off', 'Off', 'f', 'n']) expect(flag(no)).toEqual({ ok: true, value: { include_launching: false } });
    for (const bad of ['maybe', '', '2', 'truee', ['true', 'false']]) expect(issues(ListServersQuery, { include_pool: bad })).toEqual([[['body', 'include_pool'], 'bool_parsing']]);
    expect(checkContract(ListServersQuery, { offset: '20', limit: '10' }, ['query'])).toEqual({ ok: true, value: { offset: 20, limit: 10 } });
    expect(issues(ListServersQuery, { offset: '-1' })).toEqual([[['body', 'offset'], 'greater_than_equal']]);
  });

  it('answers only the fields given (class fields start out undefined)', () => {
    expect(checkContract(StartServerBody, { name: 'x', region: 'eu-west' }, ['body'])).toEqual({ ok: true, value: { name: 'x', region: 'eu-west' } });
    expect(Object.keys((checkContract(StartServerBody, { name: 'x', region: 'eu-west' }, ['body']) as { value: object }).value)).toEqual(['name', 'region']);
  });
});

describe('the fast path', () => {
  const SIMPLE = [ServerIdParams, PlayerIdHeader, TargetPlayerBody, GetServerRequest, AdminLobbyRequest];
  const VALUES: unknown[] = [undefined, null, '', 'x', 'a'.repeat(200), '00000000-0000-4000-8000-000000000000', 'bad id', 0, 1, 1.5, -1, NaN, true, [], {}, ['a']];
  it.each(SIMPLE.map((c) => [c.name, c] as const))('%s accepts exactly what class-validator accepts', (_, cls) => {
    expect(fieldsOf(cls).every(([, f]) => f.fast)).toBe(true);
    const names = fieldsOf(cls).map(([k]) => k);
    for (const name of names) {
      for (const v of VALUES) {
        const base = Object.fromEntries(names.map((k) => [k, k === 'instance_id' ? '00000000-0000-4000-8000-000000000000' : 'a']));
        const input = v === undefined ? Object.fromEntries(Object.entries(base).filter(([k]) => k !== name)) : { ...base, [name]: v };
        for (const strict of [true, false]) {
          expect([name, v, strict, checkContract(cls, input, ['body'], strict).ok]).toEqual([name, v, strict, fullCheck(cls, input, ['body'], strict).ok]);
        }
      }
    }
  });

  // Every contract class: the answer (ok, value, issues) is class-validator's, whichever path gave it.
  const CLASSES = Object.entries(proto).filter(([, v]) => typeof v === 'function' && fieldsOf(v).length > 0) as [string, ContractClass][];
  const POOL: unknown[] = [...VALUES, 'us-east', 'tiny', 'udp', 'game', 'jwt', 'none', 7777, 64, 'https://example.test/jwks', 'x'.repeat(40), { a: 'b' }, { i: 1 }, { A_B: 'x' }, { 'bad key!': 'x' }, { A: 'x'.repeat(5000) }, [{}], ['x', 'y'], { modes: {} }];
  /** JSON with object keys sorted (which path built a value decides its key order, nothing else). */
  const canon = (v: unknown): string => JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));
  const nestedOf = (schema: JsonSchema) => (schema.$nested ?? (schema.items as JsonSchema | undefined)?.$nested) as (() => ContractClass) | undefined;
  /** Values for a field: a valid nested object (or array of one) where it nests, then the pool. */
  function candidates(schema: JsonSchema, depth: number): unknown[] {
    const nested = nestedOf(schema);
    if (!nested || depth > 2) return POOL;
    const item = base(nested(), depth + 1);
    return [schema.$nested ? item : [item], ...POOL];
  }
  /** An input of the class with, for each field, the first candidate class-validator finds nothing wrong with there. */
  function base(cls: ContractClass, depth = 0): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, f] of fieldsOf(cls)) {
      const ok = candidates(f.schema, depth).find((v) => {
        const r = fullCheck(cls, { [k]: v }, [], true);
        return r.ok || !r.issues.some((i) => i.loc[0] === k);
      });
      if (ok !== undefined) out[k] = ok;
    }
    return out;
  }
  it('on every contract class, gives what class-validator gives (each field of a valid input changed to each candidate)', () => {
    const wrong: unknown[] = [];
    let fast = 0;
    let compared = 0;
    for (const [name, cls] of CLASSES) {
      const b = base(cls);
      const inputs: Record<string, unknown>[] = [b, { ...b, unknown_field: 1 }];
      for (const [k, f] of fieldsOf(cls)) {
        inputs.push(Object.fromEntries(Object.entries(b).filter(([key]) => key !== k)));
        for (const v of candidates(f.schema, 0)) inputs.push({ ...b, [k]: v });
      }
      for (const given of inputs) {
        for (const strict of [true, false]) {
          compared++;
          if (passesFast(cls, given, strict)) fast++;
          const a = checkContract(cls, given, ['body'], strict);
          const want = fullCheck(cls, given, ['body'], strict);
          if (canon(a) !== canon(want)) wrong.push({ name, given, strict, got: a, want });
        }
      }
    }
    expect(wrong.slice(0, 3)).toEqual([]);
    expect(compared).toBeGreaterThan(5_000);
    expect(fast).toBeGreaterThan(compared / 10); // the fast path was taken (the comparison means something)
  });

  it('takes the fast path for a typical server start (nested, custom data, env vars)', () => {
    const body = { name: 'claim-1', region: 'us-east', version_tag: 'tiny', custom_data: { i: 1 }, environment_variables: { MODE: 'x' }, port_configs: [{ name: 'game', internal_port: 7777, protocol: 'udp' }] };
    expect(passesFast(StartServerBody, body, true)).toBe(true);
    expect(checkContract(StartServerBody, body, ['body'])).toEqual(fullCheck(StartServerBody, body, ['body'], true));
    // a default value (class-transformer's instance has it) keeps a class on the slow path
    expect(passesFast(proto.JwtAuth, { provider: 'jwt', secret: 's'.repeat(32) }, true)).toBeNull();
  });
});

