// Unpacking uploaded ZIPs in the background: a build ends ready or failed, never stuck in processing —
// also across restarts (resumeInterrupted). Shared by the receive-upload handler and the host's lifecycle.
import { Inject, Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { buildDecider, buildStream } from '@spawnpoint/domain';
import { execute, load, Platform, PLATFORM } from '@spawnpoint/platform';
import { BuildRejected, processZip } from './zip/process-zip';

@Injectable()
export class BuildProcessing {
  private readonly jobs = new Set<Promise<void>>();

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  artifactDir(projectId: string, buildId: string): string {
    return path.join(this.platform.config.dataDir, 'builds', projectId, buildId);
  }

  start(projectId: string, buildId: string, zipPath: string, executablePath: string | null): void {
    const job = this.process(projectId, buildId, zipPath, executablePath).finally(() => this.jobs.delete(job));
    this.jobs.add(job);
  }

  /** Builds left in processing by a stopped service: resume from the kept upload, or fail them. */
  async resumeInterrupted(): Promise<void> {
    const { db, store } = this.platform;
    const stuck = await db.build.findMany({ where: { status: 'processing', deleted: false }, select: { id: true } });
    for (const { id } of stuck) {
      const { state } = await load(store, buildDecider, buildStream(id));
      if (state.status !== 'processing') continue;
      if (existsSync(state.uploadPath)) {
        this.start(state.projectId, id, state.uploadPath, state.executablePath);
      } else {
        await execute(store, buildDecider, buildStream(id), {
          type: 'FailProcessing', error: 'processing was interrupted and the upload is gone; upload the ZIP again', now: this.now(),
        }, { projectId: state.projectId });
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

  private async process(projectId: string, buildId: string, zipPath: string, executablePath: string | null): Promise<void> {
    const stream = buildStream(buildId);
    const { store } = this.platform;
    try {
      const dir = this.artifactDir(projectId, buildId);
      await mkdir(path.dirname(dir), { recursive: true });
      const result = await processZip(zipPath, dir, { executablePath: executablePath ?? undefined });
      await execute(store, buildDecider, stream, { type: 'CompleteProcessing', executablePath: result.executablePath, sizeBytes: result.sizeBytes, now: this.now() }, { projectId });
    } catch (err) {
      const message = err instanceof BuildRejected ? err.message : `processing failed: ${(err as Error).message}`;
      await execute(store, buildDecider, stream, { type: 'FailProcessing', error: message, now: this.now() }, { projectId });
    } finally {
      await rm(zipPath, { force: true });
    }
  }
}
