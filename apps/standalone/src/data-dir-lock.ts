// One standalone platform per data dir: two would share one embedded database and one set of games.
// The lock is a file naming the owner by pid and start time, so a lock left by a kill -9'd platform
// (or whose pid was reused since) is recognised as stale and taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startTimeOf } from './proc';

export interface DataDirLock { release(): void }

export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, 'standalone.lock');
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; startTime: number };
    if (owner.pid !== process.pid && startTimeOf(owner.pid) === owner.startTime) {
      throw new Error(`the data dir ${dataDir} is in use by another running Spawnpoint standalone (pid ${owner.pid}); stop it first, or set SPAWNPOINT_DATA_DIR to another directory`);
    }
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('the data dir')) throw err;
    // No lock, or an unreadable one: nobody we can recognise owns the dir.
  }
  writeFileSync(file, JSON.stringify({ pid: process.pid, startTime: startTimeOf(process.pid) }), { mode: 0o600 });
  return {
    release() {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid === process.pid) rmSync(file, { force: true });
      } catch {
        // already gone
      }
    },
  };
}
