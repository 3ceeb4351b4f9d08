// The builds service: upload tickets (single-use, hashed tokens), versions per name, hostile-ZIP
// processing into the build's tar.gz blob (and a local directory), and resolution of a version_tag to a
// ready build. This class runs its read model, relay and background work; each use case is a handler in
// commands/ or queries/.
import { Inject, Injectable } from '@nestjs/common';
import { BLOBS, BlobStore, Platform, PLATFORM, ServiceHost } from '@spawnpoint/platform';
import { BuildAggregate } from './build-aggregate';
import { BuildProcessing } from './build-processing';
import { BuildsReadModel } from './builds-read-model';
import { buildLogProjection } from './build-log.projection';
import { buildsProjection } from './builds.projection';
import { UploadSweeper } from './upload-sweeper';

export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
/** How often expired upload tickets and abandoned upload blobs are cleaned up (upload-sweeper.ts). */
export const UPLOAD_SWEEP_MS = 60 * 1000;

@Injectable()
export class BuildsHost extends ServiceHost {
  private sweeper: UploadSweeper | null = null;

  constructor(
    @Inject(PLATFORM) platform: Platform,
    readModel: BuildsReadModel,
    private readonly processing: BuildProcessing,
    @Inject(BLOBS) private readonly blobs: BlobStore,
    private readonly builds: BuildAggregate,
  ) {
    super(platform, readModel, 'builds', ['build', 'buildseries']);
  }

  protected readModels() {
    return [buildsProjection, buildLogProjection];
  }

  protected override async starting(): Promise<void> {
    await this.processing.resumeInterrupted();
    this.sweeper = new UploadSweeper(this.builds, this.db, this.blobs, this.clock, { ticketTtlMs: UPLOAD_URL_TTL_MS });
    this.sweeper.start(UPLOAD_SWEEP_MS);
  }

  protected override async stopping(): Promise<void> {
    await this.sweeper?.stop();
    await this.processing.settle();
  }

  /** Expire overdue upload tickets and remove abandoned upload blobs now (also runs every minute). */
  sweepUploads() {
    if (!this.sweeper) throw new Error('builds service not started');
    return this.sweeper.sweep();
  }
}
