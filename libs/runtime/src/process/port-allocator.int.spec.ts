import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HostPortLocks } from './host-port-locks';
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

  it('never probes a port another runtime on the host reserved: its game binds it meanwhile without EADDRINUSE', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'port-locks-'));
    try {
      const replicaA = new PortAllocator([LOW + 10, LOW + 11], new HostPortLocks(dir));
      const replicaB = new PortAllocator([LOW + 10, LOW + 11], new HostPortLocks(dir));
      const [reserved] = await replicaA.allocate('game-of-a', ['udp']);
      // A's game (its own process, as a game is) binds and rebinds its port while B allocates and releases the
      // other one, over and over: B must never bind A's port, even for a probe.
      const game = spawn(process.execPath, ['-e', `
        const dgram = require('node:dgram');
        let failures = 0;
        const end = Date.now() + 1500;
        (async () => {
          while (Date.now() < end) {
            const s = dgram.createSocket('udp4');
            await new Promise((r) => { s.once('error', () => { failures++; r(); }); s.bind({ port: ${reserved}, address: '0.0.0.0', exclusive: true }, r); });
            await new Promise((r) => s.close(r));
          }
          process.stdout.write(String(failures));
        })();`]);
      let out = '';
      game.stdout.on('data', (d) => { out += d; });
      const ended = new Promise((resolve) => game.once('exit', resolve));
      const until = Date.now() + 1400;
      for (let i = 0; Date.now() < until; i++) {
        expect(await replicaB.allocate(`b-${i}`, ['udp'])).toEqual([LOW + 11]);
        replicaB.release(`b-${i}`);
      }
      await ended;
      const failures = Number(out);
      expect(failures).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a nonsensical range', () => {
    expect(() => new PortAllocator([8000, 7000])).toThrow(/invalid port range/);
    expect(() => new PortAllocator([0, 10])).toThrow(/invalid port range/);
  });
});
