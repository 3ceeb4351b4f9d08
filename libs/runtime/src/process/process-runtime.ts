import os from 'node:os';
import { emitTo } from '../listeners';
import path from 'node:path';
import { classifyLogLevel } from '../log-level';
import { MachineTimers } from '../machine-timers';
import type {
  AllocatedPort, ExitReason, GameRuntime, LogStream, MachineEvent, MachineMetrics, MachineSpec, PortSpec, RecoveredMachine,
} from '../runtime';
import { LineSplitter } from './line-splitter';
import { MachineRecord, MachineRecords } from './machine-records';
import { hasEnded, isSameGroupLeader, leftoverGroupMembers, readStat } from './proc-identity';
import { SpillTail } from './spill-tail';
import { DEFAULT_PORT_LOCK_DIR, HostPortLocks } from './host-port-locks';
import { PortAllocator } from './port-allocator';
import { unboundPorts } from './port-binding';
import { readTreeUsage } from './proc-fs';
import { directSpawner, GameProcess, ProcessSpawner, Spawner } from './spawner';
import { SpanKind } from '@opentelemetry/api';
import { runtimeSpan } from '../tracing';

export interface ProcessRuntimeOptions {
  portRange?: [number, number];
  tcpHost?: string;
  udpHost?: string;
  startupTimeoutMs?: number;
  pollIntervalMs?: number;
  stopGraceMs?: number;
  /**
   * Nice value a game starts at until its ports are bound, then back to 0: a game's start-up burst
   * (interpreter, asset loading) yields the CPU to the platform (claims, API) on a shared machine.
   * Only when the platform may raise priority again (root / CAP_SYS_NICE); else games start at 0.
   */
  startupNice?: number;
  /** Start games from a separate spawner process (default), so fork() never blocks the platform. */
  spawner?: 'process' | 'direct';
  /**
   * Where each running game is noted (pid, start time, spec) so that a platform restarted after a crash
   * adopts its games (recover()). Unset: nothing is noted and nothing can be adopted.
   */
  stateDir?: string;
  /**
   * Host ports reserved across every process runtime on this host (host-port-locks.ts): a directory they
   * share. Default: with a stateDir (a platform's runtime), the machine's temp dir; without, none.
   */
  portLockDir?: string | null;
}

// USER_HZ: the unit of /proc/<pid>/stat CPU times, fixed at 100 in the kernel ABI on every
// mainstream architecture.
const CLOCK_TICKS_PER_SECOND = 100;
const CLOSE_GRACE_MS = 1000;
// After the game's main process exits, how long to wait for its pipes to drain.
const DRAIN_TIMEOUT_MS = 1000;
const DEFAULT_STARTUP_NICE = 10;
// An adopted game is not our child: its end is seen by looking, this often.
const ADOPTED_POLL_MS = 200;

interface Machine {
  readonly spec: MachineSpec;
  readonly pid: number;
  /** Started by an earlier instance of the platform: watched through /proc, output read from its spill files. */
  readonly adopted: { startTime: number; tails: { stdout: SpillTail; stderr: SpillTail }; saved: string } | null;
  /** Set when the platform ends the game, so the exit is not reported as the game's own doing. */
  exitReason: ExitReason | null;
  portsBound: boolean;
  exited: boolean;
  stopping: boolean;
  unbound: AllocatedPort[];
  cpu: { ticks: number; at: number };
  readonly timers: MachineTimers;
  readonly gone: Promise<void>;
  markGone(): void;
}

/** A machine as it is first watched: started here (`adopted` null) or by an earlier instance. */
function newMachine(spec: MachineSpec, pid: number, adopted: Machine['adopted']): Machine {
  let markGone!: () => void;
  return {
    spec, pid, adopted,
    exitReason: null, portsBound: false, exited: false, stopping: false, unbound: spec.ports,
    cpu: { ticks: 0, at: Date.now() },
    timers: new MachineTimers(),
    gone: new Promise<void>((resolve) => { markGone = resolve; }),
    markGone: () => markGone(),
  };
}

/** Runs each game server as a child process on this machine, in its own process group. */
export class ProcessRuntime implements GameRuntime {
  readonly kind = 'process';
  private readonly ports: PortAllocator;
  private readonly tcpHost: string;
  private readonly udpHost: string;
  private readonly startupTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly stopGraceMs: number;
  private readonly startupNice: number;
  private readonly spawner: Spawner;
  private readonly machines = new Map<string, Machine>();
  private readonly listeners = new Set<(event: MachineEvent) => void>();
  private readonly records: MachineRecords | null;
  private closed = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(options: ProcessRuntimeOptions = {}) {
    const lockDir = options.portLockDir === undefined ? (options.stateDir ? DEFAULT_PORT_LOCK_DIR : null) : options.portLockDir;
    this.ports = new PortAllocator(options.portRange ?? [7000, 7999], lockDir ? new HostPortLocks(lockDir) : null);
    this.tcpHost = options.tcpHost ?? '127.0.0.1';
    this.udpHost = options.udpHost ?? '127.0.0.1';
    this.startupTimeoutMs = options.startupTimeoutMs ?? 120_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    this.stopGraceMs = options.stopGraceMs ?? 5000;
    this.startupNice = options.startupNice ?? (process.getuid?.() === 0 ? DEFAULT_STARTUP_NICE : 0);
    this.spawner = options.spawner === 'direct' ? directSpawner : new ProcessSpawner();
    this.records = options.stateDir ? new MachineRecords(options.stateDir) : null;
  }

  async allocatePorts(serverId: string, specs: PortSpec[]): Promise<AllocatedPort[]> {
    const numbers = await this.ports.allocate(serverId, specs.map((s) => s.protocol));
    return specs.map((spec, i) => ({
      ...spec,
      bindPort: numbers[i],
      externalPort: numbers[i],
      host: spec.protocol === 'tcp' ? this.tcpHost : this.udpHost,
    }));
  }

  async releasePorts(serverId: string): Promise<void> {
    this.ports.release(serverId);
  }

  start(spec: MachineSpec): Promise<void> {
    if (this.closed) return Promise.reject(new Error('process runtime is closed'));
    // close() waits for starts in flight: their spawn needs the spawner, and their game must be stopped.
    const started = this.launch(spec);
    this.inFlight.add(started);
    void started.catch(() => undefined).finally(() => this.inFlight.delete(started));
    return started;
  }

  private async launch(spec: MachineSpec): Promise<void> {
    if (this.machines.has(spec.serverId)) throw new Error(`server ${spec.serverId} is already running`);
    const executable = resolveExecutable(spec);
    let game: GameProcess;
    try {
      // Only PATH from the platform: its own secrets must not leak into user code.
      game = await runtimeSpan('runtime spawn', SpanKind.INTERNAL, () => ({ 'spawnpoint.server_id': spec.serverId, 'process.executable.name': path.basename(executable) }), () => this.spawner.spawn({
        executable, args: spec.args, cwd: spec.buildDir!, env: { PATH: process.env.PATH ?? '', ...spec.env },
        ...(this.records ? { record: { file: this.records.recordFile(spec.serverId), serverId: spec.serverId, spec }, spill: this.records.spillFiles(spec.serverId) } : {}),
      }), (spawned) => ({ 'process.pid': spawned.pid }));
    } catch (err) {
      this.startFailed(spec.serverId, executable, err);
      return;
    }
    this.setNice(game.pid, this.startupNice);
    this.track(spec, game);
    // Closed while the spawner forked it: close() did not see this game, so it must not outlive the runtime.
    if (this.closed) {
      await this.stop(spec.serverId, 0);
      throw new Error('process runtime is closed');
    }
  }

  stop(serverId: string, graceMs = this.stopGraceMs): Promise<void> {
    const machine = this.machines.get(serverId);
    if (!machine) return Promise.resolve();
    if (!machine.stopping && !machine.exited) {
      machine.stopping = true;
      machine.exitReason ??= 'SHUTDOWN_SIGNAL';
      this.signal(machine, 'SIGTERM');
      machine.timers.later(graceMs, () => this.signal(machine, 'SIGKILL'));
    }
    return machine.gone;
  }

  watch(listener: (event: MachineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  running(): string[] {
    return [...this.machines.keys()];
  }

  async recover(): Promise<RecoveredMachine[]> {
    this.records?.claim();
    for (const record of this.records?.list() ?? []) {
      if (this.machines.has(record.serverId)) continue;
      if (isSameGroupLeader(record)) {
        this.adoptNoted(record);
        continue;
      }
      // Gone while nobody watched. Whatever the game left behind in its process group goes too.
      for (const pid of leftoverGroupMembers(record.pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      this.records!.remove(record.serverId);
    }
    return [...this.machines.values()].map((m) => ({ serverId: m.spec.serverId, spec: m.spec }));
  }

  async metrics(serverId: string): Promise<MachineMetrics | null> {
    const machine = this.machines.get(serverId);
    if (!machine || machine.exited) return null;
    const usage = await readTreeUsage(machine.pid);
    if (!usage) return null;
    const now = Date.now();
    const seconds = (now - machine.cpu.at) / 1000;
    // Ticks can drop when a child leaves the tree unreaped; report no usage rather than negative.
    const ticks = Math.max(0, usage.cpuTicks - machine.cpu.ticks);
    machine.cpu = { ticks: usage.cpuTicks, at: now };
    return {
      cpu_percent: seconds > 0 ? (ticks / CLOCK_TICKS_PER_SECOND / seconds) * 100 : 0,
      memory_bytes: usage.rssBytes,
      memory_limit_bytes: null,
      network_rx_bytes: null,
      network_tx_bytes: null,
      sampled_at: new Date(now).toISOString(),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    await Promise.all(this.running().map((id) => this.stop(id, Math.min(this.stopGraceMs, CLOSE_GRACE_MS))));
    this.spawner.close();
    this.listeners.clear();
  }

  private track(spec: MachineSpec, game: GameProcess): void {
    const machine = newMachine(spec, game.pid, null);
    this.machines.set(spec.serverId, machine);

    const splitters = { stdout: new LineSplitter(), stderr: new LineSplitter() };
    game.on('data', (stream, chunk) => {
      for (const line of splitters[stream].push(chunk)) this.log(spec.serverId, stream, line);
    });
    game.once('exit', (exitCode, signal) => {
      machine.exited = true;
      // The game is over once its main process is: take down anything it left behind.
      this.signal(machine, 'SIGKILL', true);
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        for (const stream of ['stdout', 'stderr'] as const) {
          for (const line of splitters[stream].end()) this.log(spec.serverId, stream, line);
        }
        this.finish(machine, exitCode, signal);
      };
      game.once('close', finish);
      // A descendant that escaped the process group may hold the pipes open forever.
      machine.timers.later(DRAIN_TIMEOUT_MS, () => {
        game.destroyPipes();
        finish();
      });
    });

    machine.timers.later(this.startupTimeoutMs, () => {
      if (machine.portsBound || machine.exited || machine.stopping) return;
      machine.exitReason = 'STARTUP_FAILURE_TIMEOUT';
      const ports = machine.unbound.map((p) => `${p.bindPort}/${p.protocol}`).join(', ');
      this.platformLog(spec.serverId, `ports ${ports} not bound within ${this.startupTimeoutMs} ms, killing the server`);
      this.signal(machine, 'SIGKILL');
    });
    machine.timers.later(this.pollIntervalMs, () => this.pollPorts(machine));
    // Listeners and timers are in place: now the game's output and exit (even ones already past) flow.
    game.start();
  }

  /** Watch a game an earlier instance started, as if this one had. */
  private adoptNoted(record: MachineRecord): void {
    const { spec, pid } = record;
    const spill = this.records!.spillFiles(spec.serverId);
    const offsets = this.records!.readOffsets(spec.serverId);
    const tail = (stream: LogStream) => new SpillTail(spill[stream], (line) => this.log(spec.serverId, stream, line), offsets[stream]);
    const machine = newMachine(spec, pid, { startTime: record.startTime, tails: { stdout: tail('stdout'), stderr: tail('stderr') }, saved: JSON.stringify(offsets) });
    this.machines.set(spec.serverId, machine);
    this.ports.reserve(spec.serverId, spec.ports.map((p) => p.bindPort));
    this.pollAdopted(machine);
    // The startup clock runs from the spawn, long past for a game that was running all along: armed only
    // after the first look at its ports, or it would kill a healthy game before anyone checked.
    void this.pollPorts(machine).then(() => {
      if (machine.portsBound || machine.exited) return;
      machine.timers.later(Math.max(0, record.spawnedAt + this.startupTimeoutMs - Date.now()), () => {
        if (machine.portsBound || machine.exited || machine.stopping) return;
        machine.exitReason = 'STARTUP_FAILURE_TIMEOUT';
        this.platformLog(spec.serverId, `ports not bound within ${this.startupTimeoutMs} ms, killing the server`);
        this.signal(machine, 'SIGKILL');
      });
    });
  }

  /** An adopted game: its output from the spill files, its end from /proc. */
  private pollAdopted(machine: Machine): void {
    const adopted = machine.adopted!;
    const { stdout, stderr } = adopted.tails;
    stdout.poll();
    stderr.poll();
    if (!hasEnded({ pid: machine.pid, startTime: adopted.startTime })) {
      const offsets = JSON.stringify({ stdout: stdout.position, stderr: stderr.position });
      if (offsets !== adopted.saved) {
        adopted.saved = offsets;
        this.records!.saveOffsets(machine.spec.serverId, { stdout: stdout.position, stderr: stderr.position });
      }
      machine.timers.later(ADOPTED_POLL_MS, () => this.pollAdopted(machine));
      return;
    }
    machine.exited = true;
    // Its group may outlive it; sweep it unless the pid already names someone else's process.
    if (readStat(machine.pid) === null) this.signal(machine, 'SIGKILL', true);
    stdout.end();
    stderr.end();
    // Not our child: its exit status went to whoever reaped it.
    this.finish(machine, null, null);
  }

  private async pollPorts(machine: Machine): Promise<void> {
    if (machine.exited || machine.exitReason) return;
    machine.unbound = await unboundPorts(machine.pid, machine.spec.ports).catch(() => machine.unbound);
    if (machine.exited || machine.exitReason) return;
    if (machine.unbound.length > 0) {
      machine.timers.later(this.pollIntervalMs, () => this.pollPorts(machine));
      return;
    }
    machine.portsBound = true;
    this.setNice(machine.pid, 0);
    this.emit({ type: 'ports_bound', serverId: machine.spec.serverId, at: new Date() });
  }

  private finish(machine: Machine, exitCode: number | null, signal: NodeJS.Signals | null): void {
    machine.timers.clear();
    this.machines.delete(machine.spec.serverId);
    this.records?.remove(machine.spec.serverId);
    this.emit({
      type: 'exited', serverId: machine.spec.serverId, at: new Date(),
      exitCode, signal, reason: machine.exitReason ?? 'PROCESS_EXITED',
    });
    machine.markGone();
  }

  private startFailed(serverId: string, executable: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.platformLog(serverId, `failed to start ${executable}: ${message}`);
    this.emit({ type: 'exited', serverId, at: new Date(), exitCode: null, signal: null, reason: 'START_FAILED' });
  }

  /** Signal the whole process group. Once the leader has exited only the final sweep may, as its pid may be reused. */
  private signal(machine: Machine, signal: NodeJS.Signals, sweep = false): void {
    if (machine.exited && !sweep) return;
    try {
      process.kill(-machine.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  private setNice(pid: number, nice: number): void {
    if (this.startupNice === 0) return;
    try {
      os.setPriority(pid, nice);
    } catch {
      // ESRCH (already gone) or EACCES: the game keeps the priority it has.
    }
  }

  private log(serverId: string, stream: LogStream, message: string): void {
    this.emit({
      type: 'log',
      entry: { serverId, timestamp: new Date(), stream, level: classifyLogLevel(message, stream), message },
    });
  }

  /** A line from the platform about the server, shown with its logs so users see why it stopped. */
  private platformLog(serverId: string, message: string): void {
    this.emit({ type: 'log', entry: { serverId, timestamp: new Date(), stream: 'stderr', level: 'error', message: `spawnpoint: ${message}` } });
  }

  private emit(event: MachineEvent): void {
    emitTo(this.listeners, event);
  }
}

/** The executable inside the build directory; image builds need the kubernetes runtime. */
function resolveExecutable(spec: MachineSpec): string {
  if (!spec.buildDir) {
    throw new Error(spec.image
      ? `server ${spec.serverId}: the process runtime cannot run image builds (${spec.image}); use the kubernetes runtime`
      : `server ${spec.serverId}: no build directory to run`);
  }
  if (!spec.executablePath) throw new Error(`server ${spec.serverId}: no executable path`);
  const executable = path.join(spec.buildDir, spec.executablePath);
  const relative = path.relative(spec.buildDir, executable);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new Error(`server ${spec.serverId}: executable ${spec.executablePath} is outside the build directory`);
  }
  return executable;
}
