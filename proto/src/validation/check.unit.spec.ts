// The 422 issues a contract gives (types as the interface names them), and the fast path: for a class
// of simple fields it must accept exactly what class-validator accepts.
import { AdminLobbyRequest, GetServerRequest, ListServersQuery, PlayerIdHeader, ServerIdParams, StartServerBody, TargetPlayerBody } from '../index';
import { checkContract, fullCheck } from './check';
import { fieldsOf, type ContractClass } from './fields';

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
});
