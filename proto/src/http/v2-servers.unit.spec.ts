// The v2 inputs as the hosted service's clients send them.
import { checkContract } from '../validation/check';
import { V2ServerStatusHeaders, V2StartServerBody } from './v2-servers';

const check = (cls: new () => object, input: unknown, where: string) => {
  const r = checkContract(cls, input, [where]);
  return r.ok ? { value: r.value } : { issues: r.issues.map((i) => [i.loc, i.type]) };
};

describe('v2 start body', () => {
  it('reads a version sent as a string of digits (the Unity SDK sends it so) as the number', () => {
    expect(check(V2StartServerBody, { name: 'a', region: 'eu-west', version: '3' }, 'body')).toEqual({ value: { name: 'a', region: 'eu-west', version: 3 } });
    expect(check(V2StartServerBody, { name: 'a', region: 'eu-west', version: 3, auto_restart: null }, 'body')).toEqual({ value: { name: 'a', region: 'eu-west', version: 3, auto_restart: null } });
  });

  it('refuses any other string as a version, and a ttl outside 60–86400', () => {
    for (const version of ['0x1', '1e2', ' 3', 'three', '', '3.0']) {
      expect(check(V2StartServerBody, { name: 'a', region: 'eu-west', version }, 'body')).toEqual({ issues: [[['body', 'version'], 'number_type']] });
    }
    expect(check(V2StartServerBody, { name: 'a', region: 'eu-west', version: '0' }, 'body')).toEqual({ issues: [[['body', 'version'], 'greater_than_equal']] });
    expect(check(V2StartServerBody, { name: 'a', region: 'eu-west', ttl: 59 }, 'body')).toEqual({ issues: [[['body', 'ttl'], 'greater_than_equal']] });
    expect(check(V2StartServerBody, { name: 'a', region: 'eu-west', ttl: 86401 }, 'body')).toEqual({ issues: [[['body', 'ttl'], 'less_than_equal']] });
  });
});

describe('v2 X-Server-Status', () => {
  it('takes the three InstanceState values and names the header otherwise', () => {
    for (const s of ['launching', 'running', 'stopped']) expect(check(V2ServerStatusHeaders, { 'X-Server-Status': s }, 'header')).toEqual({ value: { 'X-Server-Status': s } });
    expect(check(V2ServerStatusHeaders, {}, 'header')).toEqual({ issues: [[['header', 'X-Server-Status'], 'missing']] });
    expect(check(V2ServerStatusHeaders, { 'X-Server-Status': 'RUNNING' }, 'header')).toEqual({ issues: [[['header', 'X-Server-Status'], 'enum']] });
  });
});
