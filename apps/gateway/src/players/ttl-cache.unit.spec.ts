import { TtlCache } from './ttl-cache';

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};

describe('TtlCache', () => {
  it('serves an entry until its ttl, then forgets it', () => {
    let now = 1_000;
    const cache = new TtlCache<string>(10, () => now);
    cache.set('a', 'x', 100);
    expect(cache.get('a')).toBe('x');
    now = 1_099;
    expect(cache.get('a')).toBe('x');
    now = 1_100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing for a ttl of zero or less', () => {
    const cache = new TtlCache<string>(10);
    cache.set('a', 'x', 0);
    cache.set('b', 'y', -5);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is bounded: the oldest entry goes first', () => {
    const cache = new TtlCache<number>(3);
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) cache.set(k, i, 60_000);
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect([cache.get('b'), cache.get('c'), cache.get('d')]).toEqual([1, 2, 3]);
    cache.set('b', 10, 60_000); // re-set: now the newest
    cache.set('e', 4, 60_000);
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('b')).toBe(10);
  });

  it('shares one load between concurrent misses and keeps its value for the ttl it gives', async () => {
    let now = 0;
    const cache = new TtlCache<string>(10, () => now);
    let loads = 0;
    const slow = deferred<string>();
    const load = async () => { loads++; return { value: await slow.promise, ttlMs: 50 }; };
    const both = Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)]);
    slow.resolve('v');
    expect(await both).toEqual(['v', 'v']);
    expect(await cache.getOrLoad('k', load)).toBe('v');
    expect(loads).toBe(1);
    now = 50;
    const again = cache.getOrLoad('k', async () => ({ value: 'w', ttlMs: 50 }));
    expect(await again).toBe('w');
  });

  it('caches nothing when the load fails, and the next call loads again', async () => {
    const cache = new TtlCache<string>(10);
    await expect(cache.getOrLoad('k', async () => { throw new Error('nope'); })).rejects.toThrow('nope');
    expect(await cache.getOrLoad('k', async () => ({ value: 'ok', ttlMs: 1_000 }))).toBe('ok');
  });

  it('does not keep a load that a delete overtook', async () => {
    const cache = new TtlCache<string>(10);
    const slow = deferred<string>();
    const loading = cache.getOrLoad('k', async () => ({ value: await slow.promise, ttlMs: 1_000 }));
    cache.delete('k');
    slow.resolve('old');
    expect(await loading).toBe('old');
    expect(cache.get('k')).toBeUndefined();
    expect(await cache.getOrLoad('k', async () => ({ value: 'new', ttlMs: 1_000 }))).toBe('new');
  });
});
