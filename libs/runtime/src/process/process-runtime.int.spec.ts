import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AllocatedPort } from '../runtime';
import { EventRecorder } from '../testing/event-recorder';
import { describeRuntimeContract } from '../testing/runtime-contract';
import { createSampleGameBuild, createScriptBuild, localProcessGone, type TempBuild } from '../testing/sample-game';
import { isPortFree } from './port-probe';
import { ProcessRuntime, type ProcessRuntimeOptions } from './process-runtime';

// Each runtime gets its own slice of ports: two runtimes sharing a range could both pick a port
// that is reserved in one but not yet bound.
let slice = 0;

describeRuntimeContract('process', async ({ startupTimeoutMs }) => {
  const base = 21000 + 200 * slice++;
  const runtime = new ProcessRuntime({ portRange: [base, base + 199], startupTimeoutMs });
  const build = await createSampleGameBuild();
  return {
    runtime,
    makeSpec: (serverId, ports) => ({
      serverId, projectId: 'contract', buildDir: build.buildDir, executablePath: build.executablePath,
      args: [], env: {}, ports, computeSize: 'small', region: 'local',
    }),
    cleanup: build.remove,
    processGone: localProcessGone,
  };
});

describe('ProcessRuntime', () => {
  const runtimes: ProcessRuntime[] = [];
  const builds: TempBuild[] = [];
  let events: EventRecorder;
  let serverCount = 0;

  function newRuntime(options: ProcessRuntimeOptions = {}) {
    const base = 21600 + 50 * runtimes.length;
    const runtime = new ProcessRuntime({ portRange: [base, base + 49], ...options });
    runtimes.push(runtime);
    events = new EventRecorder(runtime);
    return runtime;
  }

  async function startBuild(runtime: ProcessRuntime, build: TempBuild, ports: AllocatedPort[] = [], env: Record<string, string> = {}) {
    builds.push(build);
    const serverId = `process-${++serverCount}`;
    await runtime.start({
      serverId, projectId: 'p', buildDir: build.buildDir, executablePath: build.executablePath,
      args: [], env, ports, computeSize: 'small', region: 'local',
    });
    return serverId;
  }

  /** Start `script` (sh) as a game with the given ports. */
  const startScript = async (runtime: ProcessRuntime, script: string, ports: AllocatedPort[] = [], env: Record<string, string> = {}) =>
    startBuild(runtime, await createScriptBuild(script), ports, env);

  const childPid = async (serverId: string) =>
    Number(/^child (\d+)$/.exec((await events.log(serverId, /^child \d+$/)).message)![1]);

  afterEach(async () => {
    events.stop();
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
    await Promise.all(builds.splice(0).map((b) => b.remove()));
  });

  it('hands out ports bound on the configured hosts, bindPort equal to externalPort', async () => {
    const runtime = newRuntime({ tcpHost: '127.0.0.2', udpHost: '127.0.0.3' });
    const ports = await runtime.allocatePorts('s', [
      { name: 'a', internalPort: 1, protocol: 'tcp', tlsEnabled: true },
      { name: 'b', internalPort: 2, protocol: 'udp', tlsEnabled: false },
    ]);
    expect(ports).toEqual([
      { name: 'a', internalPort: 1, protocol: 'tcp', tlsEnabled: true, bindPort: ports[0].externalPort, externalPort: ports[0].externalPort, host: '127.0.0.2' },
      { name: 'b', internalPort: 2, protocol: 'udp', tlsEnabled: false, bindPort: ports[1].externalPort, externalPort: ports[1].externalPort, host: '127.0.0.3' },
    ]);
  });

  it('refuses image builds', async () => {
    const runtime = newRuntime();
    await expect(runtime.start({
      serverId: 'img', projectId: 'p', image: 'registry/game:1', args: [], env: {}, ports: [], computeSize: 'small', region: 'local',
    })).rejects.toThrow(/cannot run image builds/);
    expect(runtime.running()).toEqual([]);
  });

  it('refuses an executable outside the build directory', async () => {
    const runtime = newRuntime();
    await expect(runtime.start({
      serverId: 'escape', projectId: 'p', buildDir: '/tmp', executablePath: '../bin/sh', args: [], env: {}, ports: [], computeSize: 'small', region: 'local',
    })).rejects.toThrow(/outside the build directory/);
  });

  it.each([
    ['missing', 'no-such-file', /ENOENT/],
    ['not executable', 'data.txt', /EACCES/],
  ])('reports a %s executable as START_FAILED with a log line', async (_, executablePath, error) => {
    const runtime = newRuntime();
    const build = await createScriptBuild('true');
    builds.push(build);
    await writeFile(path.join(build.buildDir, 'data.txt'), 'not a program');
    await runtime.start({
      serverId: 'broken', projectId: 'p', buildDir: build.buildDir, executablePath, args: [], env: {}, ports: [], computeSize: 'small', region: 'local',
    });
    expect(await events.exited('broken', 0)).toMatchObject({ reason: 'START_FAILED', exitCode: null, signal: null });
    expect((await events.log('broken', error, 0)).level).toBe('error');
    expect(runtime.running()).toEqual([]);
  });

  it('gives the game only PATH and its own env, not the platform\'s', async () => {
    process.env.SPAWNPOINT_PLATFORM_SECRET = 'do-not-leak';
    try {
      const runtime = newRuntime();
      const id = await startScript(runtime, 'env; pwd', [], { GAME_VAR: 'yes' });
      await events.exited(id);
      const lines = events.events.flatMap((e) => (e.type === 'log' && e.entry.serverId === id ? [e.entry.message] : []));
      expect(lines).toContain('GAME_VAR=yes');
      expect(lines).toContain(`PATH=${process.env.PATH}`);
      expect(lines.some((l) => l.includes('do-not-leak'))).toBe(false);
      expect(lines.at(-1)).toBe(builds[0].buildDir);
    } finally {
      delete process.env.SPAWNPOINT_PLATFORM_SECRET;
    }
  });

  it('sees ports bound by a descendant of the game, not only the game itself', async () => {
    const runtime = newRuntime();
    const ports = await runtime.allocatePorts('s', [{ name: 'game', internalPort: 1, protocol: 'tcp', tlsEnabled: false }]);
    // No exec: the shell stays the parent and node binds as its child.
    const id = await startScript(runtime, `${process.execPath} -e "require('net').createServer().listen(${ports[0].bindPort}, '0.0.0.0')"`, ports);
    await events.portsBound(id);
  });

  it('starts a game at the start-up nice value and restores priority 0 once its ports are bound', async () => {
    const runtime = newRuntime({ startupNice: 7 });
    const ports = await runtime.allocatePorts('s', [{ name: 'game', internalPort: 1, protocol: 'tcp', tlsEnabled: false }]);
    // The shell prints its own nice value, waits, then execs a server that binds.
    const id = await startScript(runtime, `sleep 0.3; echo "nice $(cut -d' ' -f19 /proc/$$/stat)"; exec ${process.execPath} -e "require('net').createServer().listen(${ports[0].bindPort}, '0.0.0.0')"`, ports);
    expect((await events.log(id, /^nice /)).message).toBe('nice 7');
    await events.portsBound(id);
    const pid = (runtime as unknown as { machines: Map<string, { pid: number }> }).machines.get(id)!.pid;
    if (process.getuid?.() === 0) expect(os.getPriority(pid)).toBe(0);
  });

  it('starts games from its spawner process, not from the platform process (fork never blocks the platform)', async () => {
    const runtime = newRuntime();
    const id = await startScript(runtime, 'echo "ppid $PPID"; exec sleep 30');
    const ppid = Number(/^ppid (\d+)$/.exec((await events.log(id, /^ppid /)).message)![1]);
    expect(ppid).not.toBe(process.pid);
    expect(readFileSync(`/proc/${ppid}/cmdline`, 'utf8')).toContain('spawner-main.js');
  });

  it('can start games directly from the platform process too', async () => {
    const runtime = newRuntime({ spawner: 'direct' });
    const id = await startScript(runtime, 'echo "ppid $PPID"; exit 3');
    expect((await events.log(id, /^ppid /)).message).toBe(`ppid ${process.pid}`);
    expect(await events.exited(id)).toMatchObject({ reason: 'PROCESS_EXITED', exitCode: 3 });
  });

  it('does not count a port held by another process as bound', async () => {
    const runtime = newRuntime({ startupTimeoutMs: 1000 });
    const ports = await runtime.allocatePorts('s', [{ name: 'game', internalPort: 1, protocol: 'tcp', tlsEnabled: false }]);
    const squatter = net.createServer().listen(ports[0].bindPort, '0.0.0.0');
    try {
      const id = await startScript(runtime, 'exec sleep 1000', ports);
      expect(await events.exited(id)).toMatchObject({ reason: 'STARTUP_FAILURE_TIMEOUT', signal: 'SIGKILL' });
      expect((await events.log(id, /not bound within 1000 ms/, 0)).message).toContain(`${ports[0].bindPort}/tcp`);
      expect(events.count(id, 'ports_bound')).toBe(0);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it('frees the ports for binding once stopped', async () => {
    const runtime = newRuntime();
    const ports = await runtime.allocatePorts('game', [
      { name: 'game', internalPort: 1, protocol: 'udp', tlsEnabled: false },
      { name: 'game_tcp', internalPort: 2, protocol: 'tcp', tlsEnabled: false },
    ]);
    const env = { SPAWNPOINT_PORT_GAME: String(ports[0].bindPort), SPAWNPOINT_PORT_GAME_TCP: String(ports[1].bindPort) };
    const id = await startBuild(runtime, await createSampleGameBuild(), ports, env);
    await events.portsBound(id);
    expect(await isPortFree(ports[0].bindPort, 'udp')).toBe(false);
    expect(await isPortFree(ports[1].bindPort, 'tcp')).toBe(false);
    await runtime.stop(id);
    await runtime.releasePorts('game');
    expect(await isPortFree(ports[0].bindPort, 'udp')).toBe(true);
    expect(await isPortFree(ports[1].bindPort, 'tcp')).toBe(true);
  });

  it('escalates to SIGKILL for the whole process group after the grace period', async () => {
    const runtime = newRuntime();
    // Ignored signals stay ignored across exec, so the child ignores SIGTERM too.
    const id = await startScript(runtime, `trap '' TERM; sleep 1000 & echo "child $!"; wait`);
    const child = await childPid(id);
    const stopAt = Date.now();
    await runtime.stop(id, 300);
    expect(Date.now() - stopAt).toBeGreaterThanOrEqual(290);
    expect(await events.exited(id, 0)).toMatchObject({ reason: 'SHUTDOWN_SIGNAL', exitCode: null, signal: 'SIGKILL' });
    expect(await localProcessGone(child)).toBe(true);
  });

  it('takes down what the game left behind when it exits by itself', async () => {
    const runtime = newRuntime();
    const id = await startScript(runtime, 'sleep 1000 & echo "child $!"; exit 5');
    const child = await childPid(id);
    expect(await events.exited(id)).toMatchObject({ reason: 'PROCESS_EXITED', exitCode: 5, signal: null });
    expect(await localProcessGone(child)).toBe(true);
  });

  it('splits output into lines, including a last line without newline', async () => {
    const runtime = newRuntime();
    const id = await startScript(runtime, `printf 'one\\ntw'; sleep 0.1; printf 'o\\n[WARN] three'; echo oops >&2`);
    await events.exited(id);
    const lines = events.events.flatMap((e) => (e.type === 'log' && e.entry.serverId === id ? [[e.entry.stream, e.entry.level, e.entry.message]] : []));
    expect(lines).toEqual(expect.arrayContaining([
      ['stdout', 'info', 'one'], ['stdout', 'info', 'two'], ['stdout', 'warn', '[WARN] three'], ['stderr', 'error', 'oops'],
    ]));
    expect(lines).toHaveLength(4);
  });

  it('reports process metrics without limit or network figures', async () => {
    const runtime = newRuntime();
    const id = await startScript(runtime, `exec ${process.execPath} -e "const end = Date.now() + 400; while (Date.now() < end); setInterval(() => {}, 1000)"`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const metrics = await runtime.metrics(id);
    expect(metrics).toMatchObject({ memory_limit_bytes: null, network_rx_bytes: null, network_tx_bytes: null });
    expect(metrics!.memory_bytes).toBeGreaterThan(1024 * 1024);
    expect(metrics!.cpu_percent).toBeGreaterThan(10); // busy for 400 of the ~500 ms, leaving room for a loaded machine
  });

  it('close() stops every game and refuses new ones', async () => {
    const runtime = newRuntime({ stopGraceMs: 60_000 });
    const stubborn = await startScript(runtime, `trap '' TERM; sleep 1000 & wait`);
    const polite = await startScript(runtime, 'exec sleep 1000');
    expect(runtime.running().sort()).toEqual([stubborn, polite].sort());
    await runtime.close();
    expect(runtime.running()).toEqual([]);
    expect(events.count(stubborn, 'exited') + events.count(polite, 'exited')).toBe(2);
    await expect(startScript(runtime, 'true')).rejects.toThrow(/closed/);
  });

  it('a start in flight when close() runs is refused and its game stopped: no game outlives the runtime', async () => {
    const runtime = newRuntime();
    const pidFile = path.join(os.tmpdir(), `late-game-${process.pid}.pid`);
    const build = await createScriptBuild(`echo $$ > ${pidFile}; sleep 1000; true`);
    builds.push(build);
    const spec = { serverId: 'late', projectId: 'p', buildDir: build.buildDir, executablePath: build.executablePath, args: [], env: {}, ports: [], computeSize: 'small', region: 'local' };
    const starting = runtime.start(spec);
    await runtime.close();
    await expect(starting).rejects.toThrow(/closed/);
    expect(runtime.running()).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    // The game ran (it wrote its pid) and is gone.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(spawnSync('kill', ['-0', String(pid)]).status).not.toBe(0);
  });
});
