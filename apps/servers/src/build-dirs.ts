// Where a zip build runs from on this machine (process runtime): <data dir>/builds/<project>/<build>.
// In standalone the builds service unpacked it there already (one data dir); otherwise it is materialised
// from the build's tar.gz blob (ADR-0013): extracted into a temporary sibling and renamed into place, so
// the directory, once there, is whole — also when two starts of the same build race (here or in another
// process on the same data dir): the first rename wins, the other extract is dropped.
import { Inject, Injectable } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BLOBS, BlobStore, Platform, PLATFORM } from '@spawnpoint/platform';
import { buildArtifactBlobKey } from '@spawnpoint/proto';

const TAR = existsSync('/usr/bin/tar') ? '/usr/bin/tar' : 'tar';

@Injectable()
export class BuildDirs {
  /** Materialisations under way in this process, by directory: concurrent starts share one. */
  private readonly pending = new Map<string, Promise<string>>();

  constructor(@Inject(PLATFORM) private readonly platform: Platform, @Inject(BLOBS) private readonly blobs: BlobStore) {}

  dir(projectId: string, buildId: string): string {
    return path.join(this.platform.config.dataDir, 'builds', projectId, buildId);
  }

  /** The build's directory on this machine, extracted from its blob first when it is not there. */
  ensure(projectId: string, buildId: string): Promise<string> {
    const dir = this.dir(projectId, buildId);
    if (existsSync(dir)) return Promise.resolve(dir);
    let job = this.pending.get(dir);
    if (!job) {
      job = this.materialise(dir, buildId).finally(() => this.pending.delete(dir));
      this.pending.set(dir, job);
    }
    return job;
  }

  private async materialise(dir: string, buildId: string): Promise<string> {
    const archive = await this.blobs.open(buildArtifactBlobKey(buildId));
    if (!archive) throw new Error(`build ${buildId} has no stored artifact (deleted, or processed before artifacts were stored in the database; upload it again)`);
    const tmp = `${dir}.tmp-${randomBytes(8).toString('hex')}`;
    await mkdir(tmp, { recursive: true });
    try {
      await untarGz(archive, tmp);
      await rename(tmp, dir).catch((err: NodeJS.ErrnoException) => {
        // Another start put the same build there first: theirs is as good.
        if ((err.code === 'ENOTEMPTY' || err.code === 'EEXIST') && existsSync(dir)) return;
        throw err;
      });
      return dir;
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}

/** Extracts a tar.gz stream into `dir` (which exists); rejects with tar's complaint if it fails. */
async function untarGz(archive: Readable, dir: string): Promise<void> {
  const child = spawn(TAR, ['-xzf', '-', '-C', dir, '--no-same-owner'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr = (stderr + d).slice(-2000); });
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code ?? signal}: ${stderr.trim()}`))));
  });
  const [piped, ended] = await Promise.allSettled([pipeline(archive, child.stdin), exited]);
  // tar's own complaint says more than the broken pipe it causes.
  if (ended.status === 'rejected') throw ended.reason;
  if (piped.status === 'rejected') throw piped.reason;
}
