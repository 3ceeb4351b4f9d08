// A standalone killed with SIGKILL leaves its embedded PostgreSQL running (it is a separate process), and
// the next start could not start another on the same data dir. Only called once this process holds the
// data dir (data-dir-lock.ts): a PostgreSQL still serving it then belongs to no live platform, so it is
// shut down (fast shutdown: it rolls back open transactions; committed data is kept) and started afresh.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { commandLineOf } from './proc';

const STOP_TIMEOUT_MS = 30_000;

/** Whether `pid` is a postgres server on `databaseDir`. */
function isPostgresOf(pid: number, databaseDir: string): boolean {
  const args = commandLineOf(pid);
  if (!args) return false;
  const d = args.indexOf('-D');
  return path.basename(args[0] ?? '').startsWith('postgres') && d !== -1 && path.resolve(args[d + 1] ?? '') === path.resolve(databaseDir);
}

const alive = (pid: number) => commandLineOf(pid) !== null;

export async function stopStalePostgres(databaseDir: string, say: (message: string) => void): Promise<void> {
  const lockFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(lockFile)) return;
  const pid = Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return; // PostgreSQL itself handles a lock file of a dead server
  if (!isPostgresOf(pid, databaseDir)) {
    // The pid was reused by an unrelated process: the lock file is stale and would make PostgreSQL refuse to start.
    say(`spawnpoint: removing a stale ${lockFile} (its pid ${pid} is now another program)`);
    rmSync(lockFile, { force: true });
    return;
  }
  say(`spawnpoint: the embedded PostgreSQL of ${databaseDir} (pid ${pid}) is still running from an earlier start that did not shut down; stopping it`);
  for (const [signal, waitMs] of [['SIGINT', STOP_TIMEOUT_MS], ['SIGQUIT', 5000]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return; // gone
    }
    const until = Date.now() + waitMs;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (!alive(pid)) return;
  }
  throw new Error(`the embedded PostgreSQL of ${databaseDir} (pid ${pid}) is left from an earlier start and did not stop; stop it (kill ${pid}) and start again`);
}
