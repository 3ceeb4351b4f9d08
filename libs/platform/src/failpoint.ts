// Crash points for the kill -9 trials (test/e2e/matchmaking-crash.e2e.spec.ts). With
// SPAWNPOINT_FAILPOINTS_DIR set, a file named for a point in that directory arms it: the first process to
// reach the point takes the file (unlink succeeds for one process only) and dies by SIGKILL on that line,
// as a crash would, after one log line the trial times from. Unset (production), a point is one test.
import { unlinkSync } from 'node:fs';
import path from 'node:path';
import { flushLogs } from '@spawnpoint/logging';

const dir = process.env.SPAWNPOINT_FAILPOINTS_DIR;

export function failpoint(name: string): void {
  if (!dir) return;
  try {
    unlinkSync(path.join(dir, name));
  } catch {
    return; // not armed, or another process took it
  }
  // The log lines waiting to be written first; then this one (stdout to a pipe or file is synchronous on
  // Linux: the line is out before the kill).
  flushLogs();
  process.stdout.write(`failpoint ${name}: kill -9 (pid ${process.pid})\n`);
  process.kill(process.pid, 'SIGKILL');
}
