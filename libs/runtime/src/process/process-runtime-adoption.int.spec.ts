// Crash recovery of the process runtime with real processes: a platform process that starts a game is
// killed with SIGKILL; a new runtime on the same state directory adopts the game (ports, output, exit,
// stop) and never touches a process that merely got a recorded pid later.
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AllocatedPort } from '../runtime';
import { tcpRoundTrip } from '../testing/echo-clients';
import { EventRecorder } from '../testing/event-recorder';
import { createSampleGameBuild, localProcessGone, type TempBuild } from '../testing/sample-game';
import { MachineRecords, writeRecordFile } from './machine-records';
import { readStat } from './proc-identity';
import { ProcessRuntime } from './process-runtime';

jest.setTimeout(60_000);

const DIST = path.resolve(__dirname, '../../dist/index.js');
const RANGE: [number, number] = [23400, 23449];

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('ProcessRuntime: adopting games after the platform was killed', () => {
  let build: TempBuild;
  let stateDir: string;
  const runtimes: ProcessRuntime[] = [];
  const strays: number[] = [];

  beforeAll(async () => {
    build = await createSampleGameBuild();
  });
  beforeEach(() => {
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'sp-machines-'));
  });
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
    for (const pid of strays.splice(0)) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    rmSync(stateDir, { recursive: true, force: true });
  });
  afterAll(() => build.remove());

  /** A platform (its own Node process) that starts one game with a TCP port; `crash` kills it with SIGKILL. */
  async function platformWithGame(serverId: string): Promise<{ pid: number; spawnerPid: number; port: AllocatedPort; crash(): Promise<void> }> {
    const script = `
      const { ProcessRuntime } = require(${JSON.stringify(DIST)});
      const rt = new ProcessRuntime({ portRange: [${RANGE[0]}, ${RANGE[1]}], stateDir: ${JSON.stringify(stateDir)} });
      setInterval(() => undefined, 1000); // a platform lives until it is killed
      (async () => {
        await rt.recover();
        const ports = await rt.allocatePorts(${JSON.stringify(serverId)}, [{ name: 'game', internalPort: 7777, protocol: 'tcp', tlsEnabled: false }]);
        rt.watch((e) => { if (e.type === 'ports_bound') console.log('BOUND ' + JSON.stringify(ports[0])); });
        await rt.start({
          serverId: ${JSON.stringify(serverId)}, projectId: 'p', buildDir: ${JSON.stringify(build.buildDir)}, executablePath: ${JSON.stringify(build.executablePath)},
          args: [], env: { SPAWNPOINT_PORTS: JSON.stringify([{ name: 'game', port: ports[0].bindPort, protocol: 'tcp' }]) },
          ports, computeSize: 'small', region: 'local',
        });
      })();`;
    const platform: ChildProcess = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    platform.stdout!.on('data', (d) => { out += d; });
    await until('the game to bind its port', () => /BOUND /.test(out));
    const port = JSON.parse(/BOUND (.*)/.exec(out)![1]) as AllocatedPort;
    const record = new MachineRecords(stateDir).list().find((r) => r.serverId === serverId)!;
    strays.push(record.pid);
    const spawnerPid = readStat(record.pid)!.ppid;
    const crash = async () => {
      platform.kill('SIGKILL');
      await new Promise((resolve) => platform.once('exit', resolve));
    };
    return { pid: record.pid, spawnerPid, port, crash };
  }

  async function crashedPlatformWithGame(serverId: string) {
    const game = await platformWithGame(serverId);
    await game.crash();
    return game;
  }

  function newRuntime(startupTimeoutMs?: number): { runtime: ProcessRuntime; events: EventRecorder } {
    const runtime = new ProcessRuntime({ portRange: RANGE, stateDir, startupTimeoutMs });
    runtimes.push(runtime);
    return { runtime, events: new EventRecorder(runtime) };
  }

  it('adopts a game that outlived its platform: ports, output through the spawner, stop of its process group', async () => {
    const game = await crashedPlatformWithGame('adopt-1');
    expect(await localProcessGone(game.pid)).toBe(false);

    // Adopted long after its startup timeout would have passed: a game found serving is not killed for it.
    await new Promise((r) => setTimeout(r, 400));
    const { runtime, events } = newRuntime(300);
    const recovered = await runtime.recover();
    expect(recovered.map((m) => m.serverId)).toEqual(['adopt-1']);
    expect(recovered[0].spec?.ports[0].bindPort).toBe(game.port.bindPort);
    expect(runtime.running()).toEqual(['adopt-1']);
    await events.portsBound('adopt-1');

    // The game still serves, and writes a line per connection: its pipes are held, the line reaches us.
    await new Promise((r) => setTimeout(r, 400));
    expect(await tcpRoundTrip('127.0.0.1', game.port.bindPort, 'still here')).toBe('echo: still here');
    await events.log('adopt-1', /tcp connection/);
    // Its port is not handed to anyone else.
    const other = await runtime.allocatePorts('other', [{ name: 'game', internalPort: 7777, protocol: 'tcp', tlsEnabled: false }]);
    expect(other[0].bindPort).not.toBe(game.port.bindPort);

    await runtime.stop('adopt-1', 2000);
    expect((await events.exited('adopt-1')).reason).toBe('SHUTDOWN_SIGNAL');
    expect(await localProcessGone(game.pid)).toBe(true);
    expect(existsSync(new MachineRecords(stateDir).recordFile('adopt-1'))).toBe(false);
    // The old spawner held the game's pipes while it ran; with the game gone it leaves too.
    await until('the old spawner to exit', () => localProcessGone(game.spawnerPid));
  });

  it('reports an adopted game that ends by itself as exited', async () => {
    const game = await crashedPlatformWithGame('adopt-2');
    const { runtime, events } = newRuntime();
    await runtime.recover();
    await events.portsBound('adopt-2');
    process.kill(game.pid, 'SIGTERM');
    const exited = await events.exited('adopt-2');
    expect(exited).toMatchObject({ reason: 'PROCESS_EXITED', exitCode: null });
    expect(runtime.running()).toEqual([]);
    expect(new MachineRecords(stateDir).list()).toEqual([]);
    // Its last words, written after the platform died, came through the spill file.
    await events.log('adopt-2', /shutting down \(SIGTERM\)/);
  });

  it('after another crash, adopts again without reading the output twice', async () => {
    const game = await crashedPlatformWithGame('twice');
    // A second platform adopts the game, reads its output so far and one more line, then dies too.
    const script = `
      const { ProcessRuntime } = require(${JSON.stringify(DIST)});
      const rt = new ProcessRuntime({ portRange: [${RANGE[0]}, ${RANGE[1]}], stateDir: ${JSON.stringify(stateDir)} });
      setInterval(() => undefined, 1000);
      rt.watch((e) => { if (e.type === 'log') console.log('LOG ' + e.entry.message); });
      rt.recover().then(() => console.log('ADOPTED'));`;
    const second = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    second.stdout!.on('data', (d) => { out += d; });
    await until('the second platform to adopt', () => /ADOPTED/.test(out));
    await tcpRoundTrip('127.0.0.1', game.port.bindPort, 'one');
    await until('the second platform to read the line', () => /LOG .*tcp connection/.test(out));
    await new Promise((r) => setTimeout(r, 500)); // its read position is saved
    second.kill('SIGKILL');
    await new Promise((resolve) => second.once('exit', resolve));

    const { runtime, events } = newRuntime();
    expect((await runtime.recover()).map((m) => m.serverId)).toEqual(['twice']);
    await tcpRoundTrip('127.0.0.1', game.port.bindPort, 'two');
    await events.log('twice', /tcp connection/);
    await new Promise((r) => setTimeout(r, 500));
    const lines = events.events.flatMap((e) => (e.type === 'log' ? [e.entry.message] : []));
    // The line the second platform read is not delivered again; only the new one is.
    expect(lines.filter((l) => /tcp connection/.test(l))).toHaveLength(1);
  });

  it('refuses a state directory another running platform uses, and takes it over once that one is gone', async () => {
    const game = await platformWithGame('shared');
    const { runtime } = newRuntime();
    await expect(runtime.recover()).rejects.toThrow(/belong to another running servers service \(pid \d+\)/);
    expect(runtime.running()).toEqual([]);
    expect(await localProcessGone(game.pid)).toBe(false);
    await game.crash();
    expect((await runtime.recover()).map((m) => m.serverId)).toEqual(['shared']);
  });

  it('never adopts or signals a process that only got a recorded pid later', async () => {
    const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    strays.push(stranger.pid!);
    const real = readStat(stranger.pid!)!;
    const records = new MachineRecords(stateDir);
    writeRecordFile(records.recordFile('recycled'), {
      serverId: 'recycled', pid: stranger.pid!, startTime: real.starttime - 1, spawnedAt: Date.now(),
      spec: { serverId: 'recycled', projectId: 'p', args: [], env: {}, ports: [], computeSize: 'small', region: 'local' },
    });
    const { runtime } = newRuntime();
    expect(await runtime.recover()).toEqual([]);
    expect(await localProcessGone(stranger.pid!)).toBe(false);
    expect(records.list()).toEqual([]);
  });

  it('kills what a recorded game left behind in its process group after it died', async () => {
    // The leader exits at once; its child stays in the group.
    const leader = spawn('sh', ['-c', 'sleep 30 & echo $!'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    leader.stdout!.on('data', (d) => { out += d; });
    const startTime = readStat(leader.pid!)?.starttime ?? 0;
    await new Promise((resolve) => leader.once('exit', resolve));
    const child = Number(out.trim());
    strays.push(child);
    expect(readStat(child)?.pgrp).toBe(leader.pid);
    const records = new MachineRecords(stateDir);
    writeRecordFile(records.recordFile('dead'), {
      serverId: 'dead', pid: leader.pid!, startTime, spawnedAt: Date.now(),
      spec: { serverId: 'dead', projectId: 'p', args: [], env: {}, ports: [], computeSize: 'small', region: 'local' },
    });
    const { runtime } = newRuntime();
    expect(await runtime.recover()).toEqual([]);
    await until('the leftover to be killed', () => localProcessGone(child));
  });
});
