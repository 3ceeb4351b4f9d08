// Clean-up of abandoned uploads, run by the builds service at start and then every minute:
// - builds still `uploading` after their upload URL expired become `failed` (ExpireUpload), so no build
//   waits in `uploading` forever;
// - blobs nobody wrote for longer than an upload URL lives are removed: incomplete ones (a gateway or
//   builds process killed mid-write) and complete uploads that no `processing` build still needs (a
//   gateway killed between storing the ZIP and handing it over).
// Everything it acts on is in the store and the database, so a restart loses nothing; several builds
// replicas may sweep at once (the decider makes a repeated expiry a no-op, a repeated delete does nothing).
import { BuildCommand, BuildEvent, BuildState } from '@spawnpoint/domain';
import { Aggregate, BlobStore } from '@spawnpoint/platform';
import { UPLOAD_BLOB_PREFIX } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { logger } from '@spawnpoint/logging';

const log = logger('builds');

export interface UploadSweepResult {
  expired: string[];
  /** Keys of the blobs removed. */
  removedBlobs: string[];
}

export interface UploadSweeperOptions {
  /** How long an upload URL is valid (a ticket older than this may have expired). */
  ticketTtlMs: number;
  /** A blob unwritten this long is abandoned (default: ticketTtlMs). */
  staleBlobMs?: number;
}

export class UploadSweeper {
  private timer: NodeJS.Timeout | null = null;
  /** The sweep in progress: sweeps never overlap. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly builds: Aggregate<BuildCommand, BuildEvent, BuildState>,
    private readonly db: ReadModels,
    private readonly blobs: BlobStore,
    private readonly clock: () => Date,
    private readonly options: UploadSweeperOptions,
  ) {}

  /** Sweeps now, then every `everyMs`. */
  start(everyMs: number): void {
    const tick = () => void this.sweep().catch((err) => log.error({ err }, 'builds: upload sweep failed; the next sweep retries'));
    tick();
    this.timer = setInterval(tick, everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.last.catch(() => undefined);
  }

  /** One sweep, after the one in progress (if any). */
  sweep(): Promise<UploadSweepResult> {
    const run = this.last.catch(() => undefined).then(() => this.sweepOnce());
    this.last = run;
    return run;
  }

  private async sweepOnce(): Promise<UploadSweepResult> {
    const now = this.clock();
    const expired = await this.expireTickets(now);
    const removedBlobs = await this.removeStaleBlobs(now);
    return { expired, removedBlobs };
  }

  private async expireTickets(now: Date): Promise<string[]> {
    // expires_at = created_at + TTL (both from one clock reading), so only older tickets can have expired.
    const candidates = await this.db.build.findMany({
      where: { status: 'uploading', deleted: false, createdAt: { lt: new Date(now.getTime() - this.options.ticketTtlMs) } },
      select: { id: true, projectId: true },
      take: 500,
    });
    const expired: string[] = [];
    for (const { id, projectId } of candidates) {
      const { events } = await this.builds.handle(id, { type: 'ExpireUpload', now: now.toISOString() }, { projectId });
      if (events.length > 0) expired.push(id);
    }
    return expired;
  }

  private async removeStaleBlobs(now: Date): Promise<string[]> {
    const before = new Date(now.getTime() - (this.options.staleBlobMs ?? this.options.ticketTtlMs));
    const removed = await this.blobs.removeIncomplete(before);
    const stale = await this.blobs.completedBefore(UPLOAD_BLOB_PREFIX, before);
    if (stale.length === 0) return removed;
    const keep = new Set(await this.processingUploads());
    for (const key of stale) {
      if (keep.has(key)) continue;
      if (await this.blobs.delete(key)) removed.push(key);
    }
    return removed.sort();
  }

  /** The upload blobs that builds in `processing` will still read (an interrupted processing resumes from them). */
  private async processingUploads(): Promise<string[]> {
    const rows = await this.db.build.findMany({ where: { status: 'processing', deleted: false }, select: { id: true } });
    const keys: string[] = [];
    for (const { id } of rows) {
      const { state } = await this.builds.load(id);
      if (state.status === 'processing') keys.push(state.uploadPath);
    }
    return keys;
  }
}
