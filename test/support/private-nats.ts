// A NATS server of the test's own (JetStream on, loopback, a free port) that the test may stop and start
// again on the same port and store, or freeze and resume: for outage tests, which must never stop the machine's shared NATS.
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './processes';

const BINARY = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p)) ?? 'nats-server';

export interface PrivateNats {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store, and waits until it accepts connections. */
  start(): Promise<void>;
  /**
   * Freezes the server (SIGSTOP): connections stay open and what clients send waits in the sockets, to be
   * delivered on resume(): a hung or partitioned NATS. (A stopped one loses what clients send meanwhile:
   * the client empties its buffer on each reconnect attempt.)
   */
  pause(): void;
  resume(): void;
  /** Stops it for good and removes its store. */
  dispose(): Promise<void>;
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const port = await freePort();
  const store = mkdtempSync(path.join(os.tmpdir(), 'sp-private-nats-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    if (child) return;
    child = spawn(BINARY, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], { stdio: 'ignore' });
    const until = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`private nats-server on ${port} did not start`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const stop = async () => {
    const c = child;
    if (!c) return;
    child = null;
    if (c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGCONT'); // a paused server cannot act on SIGTERM
    const ended = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    c.kill('SIGTERM');
    const kill = setTimeout(() => c.kill('SIGKILL'), 5_000);
    await ended;
    clearTimeout(kill);
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`, port, stop, start,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async dispose() {
      await stop();
      rmSync(store, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}
