// Unpacking uploaded ZIPs in the background: a build ends ready or failed, never stuck in processing —
// also across restarts (resumeInterrupted). Shared by the receive-upload handler and the host's lifecycle.
// The ZIP arrives as a blob (the gateway streamed it into PostgreSQL); it is copied to a temporary file on
// this service's own disk (the ZIP checks need random access), unpacked into the data dir (a local cache),
// and the unpacked build is stored as a tar.gz blob before the build is ready, so any process can get it.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BuildLogLine } from '@spawnpoint/domain';
import { BLOBS, BlobStore, Platform, PLATFORM } from '@spawnpoint/platform';
import { buildArtifactBlobKey } from '@spawnpoint/proto';
import { BuildAggregate } from './build-aggregate';
import { tarGz } from './build-archive';
import { BuildRejected, processZip } from './zip/process-zip';
import { logger } from '@spawnpoint/logging';

const log = logger('builds');

const UPLOAD_GONE = 'processing was interrupted and the upload is gone; upload the ZIP again';

@Injectable()
export class BuildProcessing {
  private readonly jobs = new Set<Promise<void>>();

  constructor(@Inject(PLATFORM) private readonly platform: Platform, @Inject(BLOBS) private readonly blobs: BlobStore, private readonly builds: BuildAggregate) {}

  artifactDir(projectId: string, buildId: string): string {
    return path.join(this.platform.config.dataDir, 'builds', projectId, buildId);
  }

  /**
   * Processes the ZIP in blob `uploadKey`, and removes that blob when done (whatever the outcome). What it
   * does is written to the build's logs, on the ready or failed event (`resumed`: after a restart).
   */
  start(projectId: string, buildId: string, uploadKey: string, executablePath: string | null, resumed = false): void {
    const job = this.process(projectId, buildId, uploadKey, executablePath, resumed).finally(() => this.jobs.delete(job));
    this.jobs.add(job);
  }

  /** Builds left in processing by a stopped service: resume from the kept upload blob, or fail them. */
  async resumeInterrupted(): Promise<void> {
    const { db } = this.platform;
    const stuck = await db.build.findMany({ where: { status: 'processing', deleted: false }, select: { id: true } });
    for (const { id } of stuck) {
      const { state } = await this.builds.load(id);
      if (state.status !== 'processing') continue;
      // uploadPath holds the upload's blob key (a file path in builds received before blobs: gone).
      if (await this.blobs.head(state.uploadPath)) {
        this.start(state.projectId, id, state.uploadPath, state.executablePath, true);
      } else {
        await this.builds.handle(id, { type: 'FailProcessing', error: UPLOAD_GONE, now: this.now() }, { projectId: state.projectId });
      }
    }
  }

  /** Waits for the jobs under way (shutdown). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.jobs]);
  }

  private now(): string {
    return this.platform.clock().toISOString();
  }

  private async process(projectId: string, buildId: string, uploadKey: string, executablePath: string | null, resumed: boolean): Promise<void> {
    const lines: BuildLogLine[] = [];
    const note = (message: string, level: BuildLogLine['level'] = 'info') => { lines.push({ at: this.now(), level, message }); };
    if (resumed) note('processing resumed: the builds service restarted while this build was processing', 'warn');
    const staging = path.join(this.platform.config.dataDir, 'staging');
    const zipPath = path.join(staging, `${buildId}-${randomUUID()}.zip`);
    try {
      await mkdir(staging, { recursive: true });
      const upload = await this.blobs.open(uploadKey);
      if (!upload) throw new BuildRejected(UPLOAD_GONE);
      await pipeline(upload, createWriteStream(zipPath, { flags: 'wx' }));
      const dir = this.artifactDir(projectId, buildId);
      // A processing resumed after a crash may find its own earlier unpack (nothing else uses the directory yet).
      await rm(dir, { recursive: true, force: true });
      const result = await processZip(zipPath, dir, { executablePath: executablePath ?? undefined, log: note });
      await this.blobs.put(buildArtifactBlobKey(buildId), await tarGz(dir));
      note('stored the unpacked build (what servers start from)');
      await this.builds.handle(buildId, { type: 'CompleteProcessing', executablePath: result.executablePath, sizeBytes: result.sizeBytes, log: lines, now: this.now() }, { projectId });
    } catch (err) {
      const message = err instanceof BuildRejected ? err.message : `processing failed: ${(err as Error).message}`;
      // A failed build keeps no artifact (the blob may be written when only the last step failed).
      await rm(this.artifactDir(projectId, buildId), { recursive: true, force: true });
      await this.blobs.delete(buildArtifactBlobKey(buildId)).catch(() => undefined);
      await this.builds.handle(buildId, { type: 'FailProcessing', error: message, log: lines, now: this.now() }, { projectId });
    } finally {
      await rm(zipPath, { force: true });
      await this.blobs.delete(uploadKey).catch((err) => log.error({ err, project_id: projectId, build_id: buildId }, `builds: could not remove upload ${uploadKey}; the upload sweep retries`));
    }
  }
}
