// The builds service: upload tickets (single-use, hashed tokens), versions per name, hostile-ZIP
// processing into the artifact directory, and resolution of a version_tag to a ready build.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { buildDecider, buildSeriesDecider, buildSeriesStream, buildStream, conflict, forbidden, notFound } from '@spawnpoint/domain';
import { execute, Handlers, load, Platform, PLATFORM, randomBase62, ServiceHost, sha256 } from '@spawnpoint/platform';
import {
  ArtifactPath, ArtifactPathRequest, BuildView, GetBuildRequest, ListBuildsRequest, ReceiveUploadRequest, RegisterImageRequest, RequestUploadRequest,
  ResolveBuildRequest, ResolvedBuild, SUBJECTS, UploadTicket, UsesBuildRequest,
} from '@spawnpoint/proto';
import { toBuildView } from './build-view';
import { buildsProjection } from './builds.projection';
import { UploadSweeper } from './upload-sweeper';
import { BuildRejected, processZip } from './zip/process-zip';

export const UPLOAD_URL_TTL_MS = 60 * 60 * 1000;
/** How often expired upload tickets and abandoned upload files are cleaned up (upload-sweeper.ts). */
export const UPLOAD_SWEEP_MS = 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Injectable()
export class BuildsService extends ServiceHost {
  private readonly processing = new Set<Promise<void>>();
  private sweeper: UploadSweeper | null = null;

  constructor(@Inject(PLATFORM) platform: Platform) {
    super(platform, 'builds', ['build', 'buildseries']);
  }

  protected readModels() {
    return [buildsProjection];
  }

  protected override handlers(): Handlers {
    return {
      [SUBJECTS.builds.requestUpload]: (r: RequestUploadRequest) => this.requestUpload(r),
      [SUBJECTS.builds.receiveUpload]: (r: ReceiveUploadRequest) => this.receiveUpload(r),
      [SUBJECTS.builds.registerImage]: (r: RegisterImageRequest) => this.registerImage(r),
      [SUBJECTS.builds.get]: (r: GetBuildRequest) => this.get(r),
      [SUBJECTS.builds.list]: (r: ListBuildsRequest) => this.list(r),
      [SUBJECTS.builds.delete]: (r: GetBuildRequest) => this.delete(r),
      [SUBJECTS.builds.resolve]: (r: ResolveBuildRequest) => this.resolve(r),
      [SUBJECTS.builds.artifactPath]: (r: ArtifactPathRequest) => this.artifactPath(r),
    };
  }

  protected override async starting(): Promise<void> {
    await this.resumeInterrupted();
    this.sweeper = new UploadSweeper(this.store, this.db, path.join(this.config.dataDir, 'uploads'), this.clock, { ticketTtlMs: UPLOAD_URL_TTL_MS });
    this.sweeper.start(UPLOAD_SWEEP_MS);
  }

  protected override async stopping(): Promise<void> {
    await this.sweeper?.stop();
    await Promise.allSettled([...this.processing]);
  }

  /** Expire overdue upload tickets and remove abandoned upload files now (also runs every minute). */
  sweepUploads() {
    if (!this.sweeper) throw new Error('builds service not started');
    return this.sweeper.sweep();
  }

  artifactDir(projectId: string, buildId: string): string {
    return path.join(this.config.dataDir, 'builds', projectId, buildId);
  }

  async requestUpload(req: RequestUploadRequest): Promise<UploadTicket> {
    const buildId = randomUUID();
    const version = await this.allocateVersion(req.projectId, req.name, buildId);
    const token = `${buildId}.${randomBase62(40)}`;
    const now = this.clock();
    const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_MS).toISOString();
    await this.command(buildDecider, buildStream(buildId), {
      type: 'RequestUpload', buildId, projectId: req.projectId, name: req.name, version, tokenHash: sha256(token), expiresAt,
      executablePath: req.executablePath ?? null, now: now.toISOString(),
    }, { projectId: req.projectId });
    return { build_id: buildId, name: req.name, version, token, expires_at: expiresAt };
  }

  async receiveUpload(req: ReceiveUploadRequest): Promise<BuildView> {
    const buildId = req.token.split('.')[0];
    try {
      if (!UUID.test(buildId)) throw forbidden('upload URL is invalid or was already used');
      const { state } = await this.command(buildDecider, buildStream(buildId), {
        type: 'ReceiveUpload', tokenHash: sha256(req.token), sizeBytes: req.sizeBytes, uploadPath: req.path, now: this.now(),
      });
      if (state.status !== 'processing') throw new Error('unreachable: build not processing after upload');
      this.startProcessing(state.projectId, buildId, req.path, state.executablePath);
      return this.get({ projectId: state.projectId, buildId });
    } catch (err) {
      await rm(req.path, { force: true });
      throw err;
    }
  }

  private startProcessing(projectId: string, buildId: string, zipPath: string, executablePath: string | null): void {
    const job = this.process(projectId, buildId, zipPath, executablePath).finally(() => this.processing.delete(job));
    this.processing.add(job);
  }

  /** Builds left in processing by a stopped service: resume from the kept upload, or fail them. */
  private async resumeInterrupted(): Promise<void> {
    const stuck = await this.db.build.findMany({ where: { status: 'processing', deleted: false }, select: { id: true } });
    for (const { id } of stuck) {
      const { state } = await load(this.store, buildDecider, buildStream(id));
      if (state.status !== 'processing') continue;
      if (existsSync(state.uploadPath)) {
        this.startProcessing(state.projectId, id, state.uploadPath, state.executablePath);
      } else {
        await execute(this.store, buildDecider, buildStream(id), {
          type: 'FailProcessing', error: 'processing was interrupted and the upload is gone; upload the ZIP again', now: this.now(),
        }, { projectId: state.projectId });
      }
    }
  }

  /** Unpack and check the ZIP; the build ends ready or failed, never stuck in processing. */
  private async process(projectId: string, buildId: string, zipPath: string, executablePath: string | null): Promise<void> {
    const stream = buildStream(buildId);
    const now = () => this.now();
    try {
      const dir = this.artifactDir(projectId, buildId);
      await mkdir(path.dirname(dir), { recursive: true });
      const result = await processZip(zipPath, dir, { executablePath: executablePath ?? undefined });
      await execute(this.store, buildDecider, stream, { type: 'CompleteProcessing', executablePath: result.executablePath, sizeBytes: result.sizeBytes, now: now() }, { projectId });
    } catch (err) {
      const message = err instanceof BuildRejected ? err.message : `processing failed: ${(err as Error).message}`;
      await execute(this.store, buildDecider, stream, { type: 'FailProcessing', error: message, now: now() }, { projectId });
    } finally {
      await rm(zipPath, { force: true });
    }
  }

  async registerImage(req: RegisterImageRequest): Promise<BuildView> {
    const buildId = randomUUID();
    const version = await this.allocateVersion(req.projectId, req.name, buildId);
    await this.command(buildDecider, buildStream(buildId), {
      type: 'RegisterImage', buildId, projectId: req.projectId, name: req.name, version, image: req.image, now: this.now(),
    }, { projectId: req.projectId });
    return this.get({ projectId: req.projectId, buildId });
  }

  async get(req: GetBuildRequest): Promise<BuildView> {
    const b = UUID.test(req.buildId) ? await this.db.build.findFirst({ where: { id: req.buildId, projectId: req.projectId, deleted: false } }) : null;
    if (!b) throw notFound('build');
    return toBuildView(b);
  }

  async list(req: ListBuildsRequest): Promise<{ builds: BuildView[] }> {
    const rows = await this.db.build.findMany({
      where: { projectId: req.projectId, deleted: false, ...(req.name ? { name: req.name } : {}) },
      orderBy: [{ createdAt: 'desc' }, { version: 'desc' }],
      take: 500,
    });
    return { builds: rows.map(toBuildView) };
  }

  async delete(req: GetBuildRequest): Promise<{ status: 'build_deleted'; build_id: string }> {
    await this.get(req); // 404 for another project's build before anything else
    const { inUse } = await this.bus.request<{ inUse: boolean }>(SUBJECTS.servers.usesBuild, { projectId: req.projectId, buildId: req.buildId } satisfies UsesBuildRequest);
    await this.command(buildDecider, buildStream(req.buildId), { type: 'DeleteBuild', inUse, now: this.now() }, { projectId: req.projectId });
    await rm(this.artifactDir(req.projectId, req.buildId), { recursive: true, force: true });
    return { status: 'build_deleted', build_id: req.buildId };
  }

  /** The latest ready build under the name, or the pinned version. */
  async resolve(req: ResolveBuildRequest): Promise<ResolvedBuild> {
    const b = await this.db.build.findFirst({
      where: { projectId: req.projectId, name: req.name, status: 'ready', deleted: false, ...(req.version != null ? { version: req.version } : {}) },
      orderBy: { version: 'desc' },
    });
    if (!b) {
      const which = req.version != null ? `version ${req.version} of "${req.name}"` : `"${req.name}"`;
      throw notFound(`ready build ${which}`);
    }
    return {
      buildId: b.id, name: b.name, version: b.version, kind: b.kind as ResolvedBuild['kind'],
      dir: b.kind === 'zip' ? this.artifactDir(b.projectId, b.id) : null, executablePath: b.executablePath, image: b.image,
    };
  }

  /**
   * The unpacked directory of a ready zip build, for the signed artifact download. No project check: the
   * caller has verified a signature scoped to this build id. Unknown or deleted: 404; image build or a
   * build that is not ready: 409.
   */
  async artifactPath(req: ArtifactPathRequest): Promise<ArtifactPath> {
    const b = UUID.test(req.buildId) ? await this.db.build.findFirst({ where: { id: req.buildId, deleted: false } }) : null;
    if (!b) throw notFound('build');
    if (b.kind !== 'zip') throw conflict('build is a container image build: it has no artifact to download');
    if (b.status !== 'ready') throw conflict(`build is ${b.status}, not ready`);
    const dir = this.artifactDir(b.projectId, b.id);
    if (!existsSync(dir)) throw notFound('build');
    return { buildId: b.id, dir };
  }

  private async allocateVersion(projectId: string, name: string, buildId: string): Promise<number> {
    const { events } = await execute(this.store, buildSeriesDecider, buildSeriesStream(projectId, name), {
      type: 'AllocateVersion', projectId, name, buildId, now: this.now(),
    }, { projectId });
    return events[0].data.version;
  }
}
