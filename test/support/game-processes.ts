// The game processes a platform runs, found the way an operator would: in /proc, by command line (games
// run from the builds under the platform's data dir) and environment (SPAWNPOINT_INSTANCE_ID).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface GameProcess { pid: number; instanceId: string | null }

const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

export function gameProcesses(dataDir: string): GameProcess[] {
  // Games run from a builds dir under the data dir, or under a replica's own (`<dataDir>/servers-2/builds`).
  const under = dataDir + path.sep;
  const builds = `${path.sep}builds${path.sep}`;
  const found: GameProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = read(`/proc/${entry}/cmdline`);
    if (!cmdline?.split('\0').some((arg) => arg.startsWith(under) && arg.slice(under.length - 1).includes(builds))) continue;
    const stat = read(`/proc/${entry}/stat`);
    if (!stat || stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
    const env = (read(`/proc/${entry}/environ`) ?? '').split('\0');
    const id = env.find((v) => v.startsWith('SPAWNPOINT_INSTANCE_ID='))?.slice('SPAWNPOINT_INSTANCE_ID='.length) ?? null;
    found.push({ pid: Number(entry), instanceId: id });
  }
  return found;
}

/**
 * Orphans: game processes no active server owns (its server stopped, or unknown), and extra processes of
 * one server. `active`: ids of the servers the API shows launching or running.
 */
export function orphansOf(processes: GameProcess[], active: Set<string>): GameProcess[] {
  const seen = new Set<string>();
  return processes.filter((p) => {
    if (!p.instanceId || !active.has(p.instanceId) || seen.has(p.instanceId)) return true;
    seen.add(p.instanceId);
    return false;
  });
}

/** Ends game processes a failed test left behind (never anyone else's: only those under this data dir). */
export function killGames(dataDir: string): void {
  for (const p of gameProcesses(dataDir)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
