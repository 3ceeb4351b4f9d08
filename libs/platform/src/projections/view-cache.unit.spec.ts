import { ViewCache } from './view-cache';

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

describe('ViewCache', () => {
  it('loads once for concurrent misses and serves hits from memory', async () => {
    const cache = new ViewCache<string>();
    let loads = 0;
    const load = async () => { loads++; return 'row'; };
    expect(await Promise.all([cache.get('a', load), cache.get('a', load), cache.get('a', load)])).toEqual(['row', 'row', 'row']);
    expect(await cache.get('a', load)).toBe('row');
    expect(loads).toBe(1);
  });

  it('never caches a load that an invalidation overtook', async () => {
    const cache = new ViewCache<string>();
    const slow = deferred<string>();
    const reading = cache.get('a', () => slow.promise);
    cache.invalidate('a'); // the projection applied an event while the old row was being read
    slow.resolve('old');
    expect(await reading).toBe('old');
    expect(await cache.get('a', async () => 'new')).toBe('new');
  });

  it('drops an entry on invalidation and does not cache misses', async () => {
    const cache = new ViewCache<string>();
    await cache.get('a', async () => 'v1');
    cache.invalidate('a');
    expect(await cache.get('a', async () => 'v2')).toBe('v2');
    expect(await cache.get('x', async () => null)).toBeNull();
    expect(await cache.get('x', async () => 'found')).toBe('found');
  });

  it('hands out frozen values, so callers sharing one cannot change it', async () => {
    const cache = new ViewCache<{ ports: { n: number }[] }>();
    const v = await cache.get('a', async () => ({ ports: [{ n: 1 }] }));
    expect(Object.isFrozen(v)).toBe(true);
    expect(Object.isFrozen(v!.ports[0])).toBe(true);
    expect(() => { (v!.ports[0] as { n: number }).n = 2; }).toThrow(TypeError);
  });

  it('evicts the least recently read entry beyond capacity', async () => {
    const cache = new ViewCache<string>(2);
    await cache.get('a', async () => 'a');
    await cache.get('b', async () => 'b');
    await cache.get('a', async () => 'unused'); // a is now most recent
    await cache.get('c', async () => 'c');
    expect(cache.size).toBe(2);
    expect(await cache.get('a', async () => 'unused')).toBe('a');
    expect(await cache.get('b', async () => 'reloaded')).toBe('reloaded');
  });

  it('gives entries read since they were queued a second chance, and evicts in insertion order otherwise', async () => {
    const cache = new ViewCache<string>(3);
    for (const k of ['a', 'b', 'c']) await cache.get(k, async () => k);
    expect(cache.peek('a')).toBe('a');
    expect(cache.peek('c')).toBe('c');
    await cache.get('d', async () => 'd'); // a was read: kept; b was not: evicted
    expect(cache.peek('b')).toBeUndefined();
    await cache.get('e', async () => 'e'); // c was read: kept; a's mark was used up and it is now the oldest: evicted
    expect(cache.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].filter((k) => cache.peek(k) !== undefined)).toEqual(['c', 'd', 'e']);
  });

  it('evicts a read entry once everything was read (each gets one second chance, then the oldest goes)', async () => {
    const cache = new ViewCache<string>(2);
    for (const k of ['a', 'b']) await cache.get(k, async () => k);
    cache.peek('a');
    cache.peek('b');
    await cache.get('c', async () => 'c');
    expect(cache.size).toBe(2);
    expect(['a', 'b', 'c'].filter((k) => cache.peek(k) !== undefined)).toEqual(['b', 'c']);
  });
});
