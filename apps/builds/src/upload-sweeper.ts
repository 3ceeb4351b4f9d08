// Clean-up of abandoned uploads, run by the builds service at start and then every minute:
// - builds still `uploading` after their upload URL expired become `failed` (ExpireUpload), so no build
//   waits in `uploading` forever;
// - files in uploads/ that nobody wrote for longer than an upload URL lives and that no `processing`
//   build still needs are removed (a gateway killed mid-upload leaves its partial file there).
// Everything it acts on is in the store, the read model and the directory, so a restart loses nothing;
// several builds replicas may sweep at once (the decider makes a repeated expiry a no-op).
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { buildDecider, buildStream } from '@spawnpoint/domain';
import type { EventStore } from '@spawnpoint/eventstore';
import { execute, load } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';

export interface UploadSweepResult {
  expired: string[];
  removedFiles: string[];
}

export interface UploadSweeperOptions {
  /** How long an upload URL is valid (a ticket older than this may have expired). */
  ticketTtlMs: number;
  /** A file in uploads/ untouched this long is abandoned (default: ticketTtlMs). */
  staleFileMs?: number;
}

export class UploadSweeper {
  private timer: NodeJS.Timeout | null = null;
  /** The sweep in progress: sweeps never overlap. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly db: ReadModels,
    private readonly uploadsDir: string,
    private readonly clock: () => Date,
    private readonly options: UploadSweeperOptions,
  ) {}

  /** Sweeps now, then every `everyMs`. */
  start(everyMs: number): void {
    const tick = () => void this.sweep().catch((err) => console.error('builds: upload sweep failed; the next sweep retries', err));
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
    const removedFiles = await this.removeStaleFiles(now);
    return { expired, removedFiles };
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
      const { events } = await execute(this.store, buildDecider, buildStream(id), { type: 'ExpireUpload', now: now.toISOString() }, { projectId });
      if (events.length > 0) expired.push(id);
    }
    return expired;
  }

  private async removeStaleFiles(now: Date): Promise<string[]> {
    let names: string[];
    try {
      names = (await readdir(this.uploadsDir)).filter((n) => n.endsWith('.zip'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const staleMs = this.options.staleFileMs ?? this.options.ticketTtlMs;
    const stale: string[] = [];
    for (const name of names) {
      const file = path.join(this.uploadsDir, name);
      const info = await stat(file).catch(() => null);
      if (info && now.getTime() - info.mtimeMs > staleMs) stale.push(file);
    }
    if (stale.length === 0) return [];
    const keep = new Set(await this.processingUploads());
    const removed: string[] = [];
    for (const file of stale) {
      if (keep.has(file)) continue;
      await rm(file, { force: true });
      removed.push(file);
    }
    return removed;
  }

  /** The ZIPs that builds in `processing` will still read (an interrupted processing resumes from them). */
  private async processingUploads(): Promise<string[]> {
    const rows = await this.db.build.findMany({ where: { status: 'processing', deleted: false }, select: { id: true } });
    const paths: string[] = [];
    for (const { id } of rows) {
      const { state } = await load(this.store, buildDecider, buildStream(id));
      if (state.status === 'processing') paths.push(state.uploadPath);
    }
    return paths;
  }
}
