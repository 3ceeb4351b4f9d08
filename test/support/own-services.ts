// A private PostgreSQL and a private NATS for outage tests: the machine's own serve every other suite and
// are never stopped; these are the test's to stop (fast or immediate), kill and start again on the same
// port and data, as an operator's failover or restart would.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from './processes';

export interface OwnPostgres {
  /** The `spawnpoint` database's URL (TCP, trust). */
  url: string;
  port: number;
  /** `fast` = SIGINT (clients are told), `immediate` = SIGQUIT (connections cut, crash recovery on start). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stop for good and remove its data. */
  remove(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function accepts(url: string): Promise<boolean> {
  const c = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** The machine's PostgreSQL binaries (Debian's postgresql package, which `.ci/run` installs). */
function postgresBin(): string {
  const versions = readdirSync('/usr/lib/postgresql').filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/postgres`)).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('own PostgreSQL: no /usr/lib/postgresql/<version>/bin/postgres');
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-pg-'));
  const data = path.join(dir, 'data');
  // PostgreSQL refuses to run as root: as root, its files and process belong to `postgres`.
  const asUser = process.getuid?.() === 0
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) }
    : {};
  if ('uid' in asUser) {
    chmodSync(dir, 0o755);
    chownSync(dir, asUser.uid!, asUser.gid!);
  }
  execFileSync(`${bin}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { ...asUser, stdio: 'ignore', cwd: dir });
  const port = await freePort();
  let child: ChildProcess | null = null;
  const url = `postgres://postgres@127.0.0.1:${port}/spawnpoint`;
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const own: OwnPostgres = {
    url, port,
    async start() {
      child = spawn(`${bin}/postgres`, ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`, '-c', 'fsync=off', '-c', 'max_connections=300'],
        { ...asUser, stdio: 'ignore', cwd: dir });
      for (let i = 0; i < 200 && !(await accepts(adminUrl)); i++) await sleep(50);
      if (!(await accepts(adminUrl))) throw new Error(`own PostgreSQL did not start on ${port}`);
    },
    async stop(mode = 'fast') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
        c.once('exit', () => { clearTimeout(t); resolve(); });
        c.kill(mode === 'immediate' ? 'SIGQUIT' : 'SIGINT');
      });
    },
    async remove() {
      await own.stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await own.start();
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE spawnpoint');
  await admin.end();
  return own;
}

export interface OwnNats {
  url: string;
  port: number;
  /** Stops the server (`signal`, SIGTERM by default: a restart keeps JetStream's store; SIGKILL after 5 s) and waits until it is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and store, and waits until it accepts connections. */
  start(): Promise<void>;
  /**
   * Freezes the server (SIGSTOP): connections stay open and what clients send waits in the sockets, to be
   * delivered on resume(): a hung or partitioned NATS. (A stopped one loses what clients send meanwhile:
   * the client empties its buffer on each reconnect attempt.)
   */
  pause(): Promise<void>;
  resume(): void;
  /** Stops it for good and removes its store. */
  remove(): Promise<void>;
}

export const NATS_SERVER = process.env.NATS_SERVER_BIN
  ?? ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p)) ?? 'nats-server';

function acceptsTcp(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** Whether every thread of `pid` is stopped (state T in /proc/<pid>/task/<tid>/stat). */
function allThreadsStopped(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).every((tid) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    });
  } catch {
    return false;
  }
}

export async function startOwnNats(): Promise<OwnNats> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-nats-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  const own: OwnNats = {
    url: `nats://127.0.0.1:${port}`, port,
    async start() {
      if (child) return;
      const c = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' });
      child = c;
      const until = Date.now() + 10_000;
      while (!(await acceptsTcp(port))) {
        if (Date.now() > until || c.exitCode !== null) throw new Error(`own nats-server on ${port} did not start`);
        await sleep(50);
      }
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      if (!c) return;
      child = null;
      if (c.exitCode !== null || c.signalCode !== null) return;
      c.kill('SIGCONT'); // a paused server cannot act on SIGTERM
      const ended = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      c.kill(signal);
      const kill = setTimeout(() => c.kill('SIGKILL'), 5_000);
      await ended;
      clearTimeout(kill);
    },
    // SIGSTOP reaches each of the server's threads when it is next scheduled, not when kill() returns: on a
    // loaded machine a message sent right after could still be routed. Wait until every thread shows stopped.
    async pause() {
      const c = child;
      if (!c?.pid) return;
      c.kill('SIGSTOP');
      const until = Date.now() + 5_000;
      while (!allThreadsStopped(c.pid)) {
        if (Date.now() > until) throw new Error(`own nats-server ${c.pid} did not stop`);
        await sleep(5);
      }
    },
    resume: () => void child?.kill('SIGCONT'),
    async remove() {
      await own.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await own.start();
  return own;
}
