// Two process runtimes on one host draw from one range: a port reserved by one is never handed out by the
// other before its game binds it; a reservation of a process that has ended is taken over.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HostPortLocks } from './host-port-locks';
import { PortAllocator } from './port-allocator';

const RANGE: [number, number] = [23900, 23939];
let dir: string;
beforeEach(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'sp-port-locks-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('two allocators sharing the host directory never hand out one port twice', async () => {
  const a = new PortAllocator(RANGE, new HostPortLocks(dir));
  const b = new PortAllocator(RANGE, new HostPortLocks(dir));
  const picks = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).allocate(`s${i}`, ['tcp', 'udp'])));
  const ports = picks.flat();
  expect(new Set(ports).size).toBe(20);
  expect(readdirSync(dir).map(Number).sort()).toEqual([...ports].sort());
  // Without the shared directory both start at the range's low end: the collision the locks prevent.
  const lone1 = await new PortAllocator(RANGE).allocate('x', ['tcp']);
  const lone2 = await new PortAllocator(RANGE).allocate('y', ['tcp']);
  expect(lone1).toEqual(lone2);
});

it('a released port is free again for the other allocator; a port of an ended holder is taken over', async () => {
  const a = new PortAllocator([RANGE[0], RANGE[0]], new HostPortLocks(dir));
  const b = new PortAllocator([RANGE[0], RANGE[0]], new HostPortLocks(dir));
  expect(await a.allocate('s1', ['tcp'])).toEqual([RANGE[0]]);
  await expect(b.allocate('s2', ['tcp'])).rejects.toThrow(/no free tcp port/);
  a.release('s1');
  expect(await b.allocate('s2', ['tcp'])).toEqual([RANGE[0]]);
  b.release('s2');
  // A holder killed with its reservation in place (a replica's kill -9): its pid names no live process.
  const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(path.join(dir, String(RANGE[0])), JSON.stringify({ pid: Number(ended), startTime: 1, serverId: 'gone' }));
  expect(await b.allocate('s3', ['tcp'])).toEqual([RANGE[0]]);
});

it('an adopted game keeps its port: reserve() notes it for this process', async () => {
  const locks = new HostPortLocks(dir);
  const a = new PortAllocator(RANGE, locks);
  a.reserve('adopted', [RANGE[0]]);
  const b = new PortAllocator(RANGE, new HostPortLocks(dir));
  expect(await b.allocate('s1', ['tcp'])).not.toContain(RANGE[0]);
});

it('processes taking the same ports at once: each port goes to exactly one (a note is never seen half-written)', async () => {
  // Four real processes (as four servers replicas on one host) race for the same 1,500 ports, in step; each
  // lives on until all are done (an ended holder's ports may be taken over).
  const ROUNDS = 1500;
  const startAt = Date.now() + 1500;
  const child = (id: number) => `
    require.extensions['.ts'] = (m, f) => m._compile(require('@swc/core').transformFileSync(f, { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code, f);
    const { HostPortLocks } = require(${JSON.stringify(path.join(__dirname, 'host-port-locks.ts'))});
    const locks = new HostPortLocks(${JSON.stringify(dir)});
    while (Date.now() < ${startAt}) {}
    const won = [];
    for (let r = 0; r < ${ROUNDS}; r++) if (locks.take(40000 + r, 'c${id}')) won.push(r);
    process.stdout.write(JSON.stringify(won) + '\\n');
    process.stdin.on('end', () => process.exit(0)).resume();`;
  const children = [0, 1, 2, 3].map((id) => spawn(process.execPath, ['-e', child(id)], { cwd: path.join(__dirname, '..', '..', '..', '..'), stdio: ['pipe', 'pipe', 'inherit'] }));
  const runs = await Promise.all(children.map((p, id) => new Promise<number[]>((resolve, reject) => {
    let out = '';
    p.stdout!.on('data', (d) => {
      out += d;
      if (out.endsWith('\n')) resolve(JSON.parse(out));
    });
    p.on('exit', (code) => reject(new Error(`child ${id} exited ${code} before it answered`)));
  })));
  for (const p of children) p.stdin!.end();
  const winners = new Array(ROUNDS).fill(0);
  for (const won of runs) for (const r of won) winners[r]++;
  expect(winners.map((n, r) => [r, n]).filter(([, n]) => n !== 1)).toEqual([]);
}, 60_000);
