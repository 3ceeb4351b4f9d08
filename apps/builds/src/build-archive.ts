// A build directory as a tar.gz stream (what the build's blob holds, what a game pod downloads and the
// servers service unpacks). Moved here from the gateway, which now streams the stored archive.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';

const TAR = existsSync('/usr/bin/tar') ? '/usr/bin/tar' : 'tar';

/**
 * `tar -czf - -C dir ./<entry>...`: the directory's entries rather than `.`, so the archive has no `./`
 * entry whose mode and times an unprivileged extract would try (and fail) to set on the pod's /game.
 * The stream ends only once tar has exited 0; a failing tar aborts it, so a reader never takes a
 * truncated archive for a whole one.
 */
export async function tarGz(dir: string): Promise<Readable> {
  const entries = (await readdir(dir)).sort().map((name) => `./${name}`);
  const child = spawn(TAR, ['-czf', '-', '-C', dir, ...entries], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = new PassThrough();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr = (stderr + d).slice(-2000); });
  child.stdout.pipe(out, { end: false });
  child.once('error', (err) => out.destroy(err));
  child.once('close', (code, signal) => {
    if (code === 0) out.end();
    else out.destroy(new Error(`tar exited with ${code ?? signal}: ${stderr.trim()}`));
  });
  // The reader went away: stop archiving.
  out.once('close', () => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });
  return out;
}
