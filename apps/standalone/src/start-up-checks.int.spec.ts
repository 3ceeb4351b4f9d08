// The standalone start-up checks against real processes: the data dir lock (one platform per data dir,
// taken over from a dead or recycled owner) and the stale embedded PostgreSQL check's handling of a
// postmaster.pid whose pid now names another program. (The stale PostgreSQL itself is stopped in
// test/e2e/crash-recovery.e2e.spec.ts after a real kill -9.)
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lockDataDir } from './data-dir-lock';
import { startTimeOf } from './proc';
import { stopStalePostgres } from './stale-postgres';

describe('standalone start-up checks', () => {
  let dir: string;
  let stranger: ChildProcess;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sp-startup-'));
    stranger = spawn('sleep', ['30'], { stdio: 'ignore' });
  });
  afterEach(() => {
    stranger.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a data dir a running platform holds, with a message that says what to do', () => {
    writeFileSync(path.join(dir, 'standalone.lock'), JSON.stringify({ pid: stranger.pid, startTime: startTimeOf(stranger.pid!) }));
    expect(() => lockDataDir(dir)).toThrow(/in use by another running Spawnpoint standalone \(pid \d+\); stop it first, or set SPAWNPOINT_DATA_DIR/);
  });

  it('takes over the lock of a platform that is gone, or whose pid now names another process', () => {
    writeFileSync(path.join(dir, 'standalone.lock'), JSON.stringify({ pid: stranger.pid, startTime: startTimeOf(stranger.pid!)! - 1 }));
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(path.join(dir, 'standalone.lock'), 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(path.join(dir, 'standalone.lock'))).toBe(false);
  });

  it('removes a postmaster.pid whose pid is now another program, and leaves that program alone', async () => {
    mkdirSync(path.join(dir, 'data'));
    const lockFile = path.join(dir, 'data', 'postmaster.pid');
    writeFileSync(lockFile, `${stranger.pid}\n${path.join(dir, 'data')}\n`);
    const said: string[] = [];
    await stopStalePostgres(path.join(dir, 'data'), (m) => said.push(m));
    expect(existsSync(lockFile)).toBe(false);
    expect(said).toEqual([expect.stringMatching(/removing a stale .*postmaster.pid \(its pid \d+ is now another program\)/)]);
    expect(startTimeOf(stranger.pid!)).not.toBeNull();
  });

  it('leaves the data dir alone when no PostgreSQL runs on it', async () => {
    const said: string[] = [];
    await stopStalePostgres(path.join(dir, 'data'), (m) => said.push(m));
    expect(said).toEqual([]);
  });
});
