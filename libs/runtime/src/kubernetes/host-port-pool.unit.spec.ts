import { HostPortPool } from './host-port-pool';

describe('HostPortPool', () => {
  it('hands out distinct ports, skipping ones live pods hold', () => {
    const pool = new HostPortPool([7000, 7009]);
    const busy = new Set([7001, 7003]);
    expect(pool.allocate('a', 2, busy)).toEqual([7000, 7002]);
    expect(pool.allocate('b', 2, busy)).toEqual([7004, 7005]);
    expect(pool.reservedBy('a')).toEqual([7000, 7002]);
  });

  it('allocates all or nothing when the range runs out', () => {
    const pool = new HostPortPool([7000, 7002]);
    pool.allocate('a', 2, new Set());
    expect(() => pool.allocate('b', 2, new Set())).toThrow('no free host port in range 7000-7002 (2 needed)');
    expect(pool.reservedBy('b')).toEqual([]);
    expect(pool.allocate('c', 1, new Set())).toEqual([7002]);
  });

  it('hands a released port out last (next-fit)', () => {
    const pool = new HostPortPool([7000, 7003]);
    pool.allocate('a', 1, new Set());
    pool.release('a');
    expect(pool.allocate('b', 1, new Set())).toEqual([7001]);
    expect(pool.allocate('c', 3, new Set())).toEqual([7002, 7003, 7000]);
  });

  it('claims earlier allocations, refusing another server\'s ports and ports outside the range', () => {
    const pool = new HostPortPool([7000, 7009]);
    pool.allocate('a', 1, new Set());
    pool.claim('a', [7000]);
    pool.claim('b', [7005]);
    expect(() => pool.claim('c', [7005])).toThrow('host port 7005 is reserved for server b');
    expect(() => pool.claim('c', [8000])).toThrow(/outside the region's range/);
    expect(pool.allocate('d', 1, new Set())).toEqual([7001]);
  });

  it('picks candidates next-fit without reserving them, from where it was told to start', () => {
    const pool = new HostPortPool([7000, 7009], 7008);
    expect(pool.pick(3, new Set([7009]))).toEqual([7008, 7000, 7001]);
    expect(pool.reservedBy('a')).toEqual([]);
    expect(pool.pick(1, new Set())).toEqual([7002]);
    expect(() => pool.pick(10, new Set([7005]))).toThrow('no free host port in range 7000-7009 (10 needed)');
    expect(new HostPortPool([7000, 7009], 9000).pick(1, new Set())).toEqual([7000]);
  });

  it('refuses an invalid range', () => {
    expect(() => new HostPortPool([9, 1])).toThrow('invalid port range 9-1');
    expect(() => new HostPortPool([0, 10])).toThrow(/invalid port range/);
  });
});
