import dgram from 'node:dgram';
import net from 'node:net';
import { PortAllocator } from './port-allocator';

// Real sockets on a range no other spec uses.
const LOW = 21900;

describe('PortAllocator', () => {
  it('skips ports something else has bound, per protocol', async () => {
    const tcp = net.createServer().listen(LOW, '127.0.0.1');
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => udp.bind(LOW + 1, '0.0.0.0', resolve));
    try {
      expect(await new PortAllocator([LOW, LOW + 3]).allocate('a', ['tcp'])).toEqual([LOW + 1]);
      expect(await new PortAllocator([LOW, LOW + 3]).allocate('a', ['udp'])).toEqual([LOW]);
      expect(await new PortAllocator([LOW + 1, LOW + 3]).allocate('a', ['udp'])).toEqual([LOW + 2]);
    } finally {
      await new Promise((resolve) => tcp.close(resolve));
      await new Promise<void>((resolve) => udp.close(resolve));
    }
  });

  it('never hands out a reserved port until it is released, then hands it out last', async () => {
    const allocator = new PortAllocator([LOW, LOW + 2]);
    expect(await allocator.allocate('a', ['tcp'])).toEqual([LOW]);
    expect(await allocator.allocate('b', ['udp', 'tcp'])).toEqual([LOW + 1, LOW + 2]);
    await expect(allocator.allocate('c', ['udp'])).rejects.toThrow(`no free udp port in range ${LOW}-${LOW + 2}`);
    allocator.release('b');
    expect(await allocator.allocate('c', ['udp'])).toEqual([LOW + 1]);
    expect(await allocator.allocate('d', ['udp'])).toEqual([LOW + 2]);
  });

  it('reserves nothing when an allocation cannot be met in full', async () => {
    const allocator = new PortAllocator([LOW, LOW + 1]);
    await expect(allocator.allocate('a', ['tcp', 'tcp', 'tcp'])).rejects.toThrow(/no free tcp port/);
    expect(await allocator.allocate('b', ['tcp', 'udp'])).toEqual([LOW, LOW + 1]);
  });

  it('gives concurrent allocations distinct ports', async () => {
    const allocator = new PortAllocator([LOW, LOW + 49]);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => allocator.allocate(`s${i}`, ['tcp', 'udp'])));
    expect(new Set(results.flat()).size).toBe(40);
  });

  it('rejects a nonsensical range', () => {
    expect(() => new PortAllocator([8000, 7000])).toThrow(/invalid port range/);
    expect(() => new PortAllocator([0, 10])).toThrow(/invalid port range/);
  });
});
