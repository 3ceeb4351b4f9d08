// The spawner: a small Node process that starts game processes for the process runtime. fork() costs
// time in proportion to the parent's memory, and blocks its event loop while it runs (~10 ms from a
// platform of a few hundred MB); from this small process it is cheap, and the platform never blocks.
// It also holds the games' output pipes: when the platform dies (kill -9) the spawner stays while any
// game it started runs, copying their output into spill files (see below) so a game never writes into a
// dead pipe (SIGPIPE/EPIPE), and a restarted platform that adopts the game reads its output from there.
// Protocol (IPC, JSON): see spawner.ts.
import { spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { configureLogging } from '@spawnpoint/logging';
import { type SpillFiles } from './machine-records';
import { recordSpawn, type SpawnRecord } from './spawn-record';

// Its few lines (a game it could not record) go to the platform's output as the spawner's; a bad
// LOG_LEVEL is the platform's to report, so the default is kept here.
try {
  configureLogging({ service: 'spawner' });
} catch {
  // the platform refuses to start with it
}

type Request =
  | { op: 'spawn'; id: string; executable: string; args: string[]; cwd: string; env: Record<string, string>; record?: SpawnRecord; spill?: SpillFiles }
  | { op: 'destroy'; id: string };

interface Child {
  process: ReturnType<typeof spawn>;
  spill?: SpillFiles;
  /** Open spill files once the platform is gone. */
  files?: { stdout: Spill; stderr: Spill };
}

// A game that prints without end while nobody reads must not fill the disk: past this, its output is dropped.
const SPILL_LIMIT_BYTES = 64 * 1024 * 1024;

class Spill {
  private fd: number | null;
  private written = 0;

  constructor(file: string) {
    try {
      this.fd = openSync(file, 'a', 0o600);
    } catch {
      this.fd = null;
    }
  }

  write(chunk: Buffer): void {
    if (this.fd === null || this.written >= SPILL_LIMIT_BYTES) return;
    try {
      this.written += writeSync(this.fd, chunk);
    } catch {
      this.close();
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

const children = new Map<string, Child>();
let platformGone = false;
// A send under way when the platform dies fails with EPIPE; without a callback Node raises it as an
// 'error' on the process, which would end the spawner and break every game's pipes.
const send = (message: object) => {
  if (process.connected) process.send?.(message, undefined, {}, () => undefined);
};
process.on('error', () => undefined);

process.on('message', (m: Request) => {
  if (m.op === 'destroy') {
    const child = children.get(m.id)?.process;
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    return;
  }
  let child: ReturnType<typeof spawn>;
  try {
    // Own process group, so signals reach whatever the game spawns too.
    child = spawn(m.executable, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: 'pipe' });
  } catch (err) {
    send({ op: 'error', id: m.id, message: (err as Error).message });
    return;
  }
  if (child.pid === undefined) {
    child.once('error', (err) => send({ op: 'error', id: m.id, message: err.message }));
    return;
  }
  const entry: Child = { process: child, spill: m.spill };
  children.set(m.id, entry);
  // Recorded before the platform hears of the game: whenever the platform dies, the game is known.
  const startTime = m.record ? recordSpawn(child.pid, m.record) : null;
  send({ op: 'spawned', id: m.id, pid: child.pid, startTime });
  // Kept open but unused: some servers read console commands and quit on end of input.
  child.stdin?.on('error', () => undefined);
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.on('data', (chunk: Buffer) => {
      if (entry.files) entry.files[stream].write(chunk);
      else send({ op: 'data', id: m.id, stream, chunk: chunk.toString('base64') });
    });
  }
  child.on('exit', (code, signal) => send({ op: 'exit', id: m.id, code, signal }));
  child.on('close', () => {
    children.delete(m.id);
    entry.files?.stdout.close();
    entry.files?.stderr.close();
    send({ op: 'close', id: m.id });
    if (platformGone && children.size === 0) process.exit(0);
  });
});

// The platform went away. Without games, so does the spawner. With games (a crash: an orderly stop ends
// them first), it keeps reading their pipes into the spill files until the last one ends.
process.on('disconnect', () => {
  platformGone = true;
  if (children.size === 0) process.exit(0);
  for (const entry of children.values()) {
    if (entry.spill) entry.files = { stdout: new Spill(entry.spill.stdout), stderr: new Spill(entry.spill.stderr) };
  }
});
// Ctrl-C and a closing terminal signal the whole foreground group: the platform decides what happens to
// the games (it stops them), and the spawner must hold their pipes until then.
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
