// Game processes as the process runtime sees them, started either directly or through the spawner
// process (spawner-main.ts), which keeps fork() off the platform's event loop.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SpillFiles } from './machine-records';
import { recordSpawn, type SpawnRecord } from './spawn-record';

export interface SpawnRequest {
  executable: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Where to note the game durably, right after fork (crash recovery). */
  record?: SpawnRecord;
  /** Where the spawner copies the game's output should the platform die (crash recovery). */
  spill?: SpillFiles;
}

/** A started game: its output, its exit, and the end of its output (`close`, after `exit`). */
export interface GameProcess {
  readonly pid: number;
  /** /proc/<pid>/stat start time, as recorded; null when not recorded (or the game was already gone). */
  readonly startTime: number | null;
  on(event: 'data', listener: (stream: 'stdout' | 'stderr', chunk: Buffer) => void): this;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'close', listener: () => void): this;
  /** Stop reading the game's pipes (a descendant may hold them open forever). */
  destroyPipes(): void;
  /** Call once the listeners are attached: what the game did before (output, exit) is delivered first, in order. */
  start(): void;
}

export interface Spawner {
  /** Resolves when the process runs; rejects when it could not be started. */
  spawn(request: SpawnRequest): Promise<GameProcess>;
  close(): void;
}

/**
 * Events are held until `start()`: from the spawner, a game's first output can arrive in the same IPC read
 * as its pid, before anyone could listen.
 */
class Game extends EventEmitter implements GameProcess {
  private held: [string, unknown[]][] | null = [];

  constructor(readonly pid: number, readonly startTime: number | null, readonly destroyPipes: () => void) {
    super();
  }

  deliver(event: 'data' | 'exit' | 'close', ...args: unknown[]): void {
    if (this.held) this.held.push([event, args]);
    else this.emit(event, ...args);
  }

  start(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const [event, args] of held) this.emit(event, ...args);
  }
}

/** Starts games from this process. */
export const directSpawner: Spawner = {
  spawn(r) {
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(r.executable, r.args, { cwd: r.cwd, env: r.env, detached: true, stdio: 'pipe' });
      } catch (err) {
        reject(err); // some errno values (e.g. EINVAL) throw instead of emitting 'error'
        return;
      }
      if (child.pid === undefined) {
        child.once('error', reject);
        return;
      }
      const startTime = r.record ? recordSpawn(child.pid, r.record) : null;
      const game = new Game(child.pid, startTime, () => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      });
      child.stdin?.on('error', () => undefined);
      child.stdout?.on('data', (c: Buffer) => game.deliver('data', 'stdout', c));
      child.stderr?.on('data', (c: Buffer) => game.deliver('data', 'stderr', c));
      child.on('exit', (code, signal) => game.deliver('exit', code, signal));
      child.on('close', () => game.deliver('close'));
      resolve(game);
    });
  },
  close() {},
};

type Reply =
  | { op: 'spawned'; id: string; pid: number; startTime: number | null }
  | { op: 'error'; id: string; message: string }
  | { op: 'data'; id: string; stream: 'stdout' | 'stderr'; chunk: string }
  | { op: 'exit'; id: string; code: number | null; signal: NodeJS.Signals | null }
  | { op: 'close'; id: string };

/** The compiled spawner script: beside this module, or (tests run the TypeScript sources) in the package's dist. */
function spawnerMain(): string {
  const beside = path.join(__dirname, 'spawner-main.js');
  return existsSync(beside) ? beside : path.join(__dirname, '..', '..', 'dist', 'process', 'spawner-main.js');
}

/** Starts games through a spawner process (started on first use; restarted if it dies). */
export class ProcessSpawner implements Spawner {
  private helper: ChildProcess | null = null;
  private next = 0;
  private readonly starting = new Map<string, { resolve(g: GameProcess): void; reject(e: Error): void }>();
  private readonly games = new Map<string, Game>();

  spawn(r: SpawnRequest): Promise<GameProcess> {
    const helper = this.ensure();
    const id = String(++this.next);
    return new Promise((resolve, reject) => {
      this.starting.set(id, { resolve, reject });
      helper.send({ op: 'spawn', id, ...r });
    });
  }

  close(): void {
    this.helper?.disconnect();
    this.helper = null;
  }

  private ensure(): ChildProcess {
    if (this.helper?.connected) return this.helper;
    // Its own process group: a signal to the platform's group (Ctrl-C) must not end the holder of the games' pipes.
    const helper = fork(spawnerMain(), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [], detached: true });
    // Never what keeps the platform alive: it lives as long as the platform does.
    helper.unref();
    (helper.channel as { unref?: () => void } | undefined)?.unref?.();
    helper.on('message', (m: Reply) => this.onReply(m));
    helper.on('exit', () => {
      if (this.helper === helper) this.helper = null;
      for (const [id, s] of this.starting) {
        s.reject(new Error('the spawner process exited'));
        this.starting.delete(id);
      }
      // Games keep running; their output and exit are no longer observable through this spawner.
      for (const [id, game] of this.games) {
        game.deliver('exit', null, null);
        game.deliver('close');
        this.games.delete(id);
      }
    });
    this.helper = helper;
    return helper;
  }

  private onReply(m: Reply): void {
    if (m.op === 'spawned') {
      const game = new Game(m.pid, m.startTime, () => this.helper?.send({ op: 'destroy', id: m.id }));
      this.games.set(m.id, game);
      this.starting.get(m.id)?.resolve(game);
      this.starting.delete(m.id);
    } else if (m.op === 'error') {
      this.starting.get(m.id)?.reject(new Error(m.message));
      this.starting.delete(m.id);
    } else if (m.op === 'data') {
      this.games.get(m.id)?.deliver('data', m.stream, Buffer.from(m.chunk, 'base64'));
    } else if (m.op === 'exit') {
      this.games.get(m.id)?.deliver('exit', m.code, m.signal);
    } else {
      this.games.get(m.id)?.deliver('close');
      this.games.delete(m.id);
    }
  }
}
