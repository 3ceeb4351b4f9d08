// The in-process bus's copy gives what a JSON round trip (the NATS wire) gives, value for value.
import { jsonCopy } from './json';

const roundTrip = (v: unknown) => {
  const text = JSON.stringify(v);
  return text === undefined ? undefined : JSON.parse(text);
};

class Point {
  constructor(public x: number, public y?: number) {}
  method() { return 1; }
}

const cases: [string, unknown][] = [
  ['a string', 'héllo \ud800 "quoted"'],
  ['numbers', [0, -0, 1.5, -2, NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER]],
  ['booleans and null', [true, false, null]],
  ['undefined at the top', undefined],
  ['a function at the top', () => 1],
  ['undefined, functions and symbols in an object are dropped', { a: undefined, b: () => 1, c: Symbol('s'), d: 1 }],
  ['... and become null in an array', [undefined, () => 1, Symbol('s'), 2]],
  ['holes', [1, , 3]],
  ['dates, through toJSON', { at: new Date('2026-11-27T10:00:00.000Z'), bad: new Date(NaN) }],
  ['toJSON with its key', { k: { toJSON: (key: string) => `key:${key}` }, list: [{ toJSON: (key: string) => `i${key}` }] }],
  ['a class instance becomes a plain object', new Point(1)],
  ['maps, sets and typed arrays', { m: new Map([[1, 2]]), s: new Set([1]), u: new Uint8Array([1, 2]), b: Buffer.from('hi') }],
  ['boxed primitives', [new Number(3), new String('s'), new Boolean(false)]],
  ['an own __proto__ key', JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')],
  ['symbol keys are left out', { [Symbol('k')]: 1, a: 2 }],
  ['nested', { lobby: { members: [{ id: 'p1', state: { x: 1, tags: ['a'], nested: { deep: [[1, [2, { z: null }]]] } } }] } }],
  ['key order', { b: 1, a: 2, 1: 'one', 0: 'zero' }],
];

describe('jsonCopy', () => {
  it.each(cases)('%s: as a JSON round trip', (_name, value) => {
    const copied = jsonCopy(value);
    expect(copied).toStrictEqual(roundTrip(value));
    expect(JSON.stringify(copied)).toBe(JSON.stringify(value));
  });

  it('copies: changing the copy leaves the original as it was', () => {
    const original = { a: { b: [1, { c: 2 }] } };
    const copied = jsonCopy(original);
    (copied.a.b[1] as { c: number }).c = 3;
    expect(original).toEqual({ a: { b: [1, { c: 2 }] } });
  });

  it('an own __proto__ key stays a key: the copy\'s prototype is Object\'s', () => {
    const copied = jsonCopy(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(copied)).toEqual(['__proto__']);
  });

  it('refuses what JSON refuses: BigInt, and a cycle', () => {
    expect(() => jsonCopy({ n: BigInt(1) })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => jsonCopy(cyclic)).toThrow(TypeError);
  });

  it('random JSON values come out as the round trip gives them', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const gen = (depth: number): unknown => {
      const r = rand();
      if (depth > 4 || r < 0.3) return [1.25, 'x', true, null, undefined, -0, NaN][Math.floor(rand() * 7)];
      if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => gen(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [`k${i}${Math.floor(rand() * 3)}`, gen(depth + 1)]));
    };
    for (let i = 0; i < 500; i++) {
      const v = gen(0);
      expect(jsonCopy(v)).toStrictEqual(roundTrip(v));
    }
  });
});
