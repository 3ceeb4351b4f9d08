// Abandoned uploads, through the real builds service on PostgreSQL and its blob store: a build still
// `uploading` after its upload URL expired is failed (also by a service started after a restart), a
// partial blob nobody writes any more and an upload nobody handed over are removed, fresh blobs and valid
// tickets are left alone.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildStream, UPLOAD_EXPIRED } from '@spawnpoint/domain';
import { PostgresCheckpointStore } from '@spawnpoint/eventstore';
import { InProcessBus } from '@spawnpoint/messaging';
import { BlobStore, loadConfig, Platform, sha256 } from '@spawnpoint/platform';
import { createProjectionTestBed, ProjectionTestBed } from '../../../test/support/projections';
import { BuildAggregate } from './build-aggregate';
import { BuildProcessing } from './build-processing';
import { BuildVersions } from './build-versions';
import { BuildViews } from './build-views';
import { BuildsReadModel } from './builds-read-model';
import { BuildsHost, UPLOAD_URL_TTL_MS } from './builds.host';
import { ReceiveUpload, ReceiveUploadHandler } from './commands/receive-upload.handler';
import { RequestUpload, RequestUploadHandler } from './commands/request-upload.handler';
import { rawZip } from './zip/testing/raw-zip';

/** The builds host with the handlers this test drives. */
interface Service {
  host: BuildsHost;
  requestUpload(r: RequestUpload['request']): ReturnType<RequestUploadHandler['execute']>;
  receiveUpload(r: ReceiveUpload['request']): ReturnType<ReceiveUploadHandler['execute']>;
  views: BuildViews;
  builds: BuildAggregate;
}

describe('builds service: abandoned uploads', () => {
  let bed: ProjectionTestBed;
  let bus: InProcessBus;
  let dataDir: string;
  let blobs: BlobStore;
  let now = new Date();
  const minutes = (m: number) => m * 60_000;

  beforeAll(async () => {
    bed = await createProjectionTestBed('uploadsweep');
    bus = new InProcessBus();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-upload-sweep-'));
    blobs = new BlobStore(bed.url);
  });
  afterAll(async () => {
    await blobs?.close();
    await bus?.close();
    await bed?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function startService(): Promise<Service> {
    const checkpoints = new PostgresCheckpointStore(bed.store.pool);
    await checkpoints.migrate();
    const platform: Platform = {
      config: loadConfig({ SPAWNPOINT_DATA_DIR: dataDir }), clock: () => now, store: bed.store, checkpoints, bus, db: bed.models,
    };
    const readModel = new BuildsReadModel(platform);
    const builds = new BuildAggregate(platform, readModel);
    const processing = new BuildProcessing(platform, blobs, builds);
    const host = new BuildsHost(platform, readModel, processing, blobs, builds);
    await host.onModuleInit();
    await host.onApplicationBootstrap();
    const views = new BuildViews(platform);
    return {
      host,
      views,
      builds,
      requestUpload: (r) => new RequestUploadHandler(builds, readModel, new BuildVersions(platform)).execute(new RequestUpload(r)),
      receiveUpload: (r) => new ReceiveUploadHandler(builds, readModel, processing, views, blobs).execute(new ReceiveUpload(r)),
    };
  }
  const status = async (service: Service, buildId: string) => {
    await service.host.projections.waitForHead(`build-${buildId}`);
    return service.views.get('p1', buildId);
  };

  /** A blob as a gateway leaves it: `complete` (stored, never handed over) or not (the writer died), last written at `at`. */
  async function leftBehind(key: string, complete: boolean, at: Date): Promise<void> {
    if (complete) await blobs.put(key, (async function* () { yield Buffer.alloc(1024); })());
    else await bed.store.pool.query("INSERT INTO blobs (id, key) VALUES (gen_random_uuid(), $1)", [key]);
    await touch(key, at);
  }
  const touch = (key: string, at: Date) => bed.store.pool.query('UPDATE blobs SET touched_at = $2 WHERE key = $1', [key, at]);
  const keys = async () => (await bed.store.pool.query<{ key: string }>("SELECT key FROM blobs ORDER BY key")).rows.map((r) => r.key);

  it('fails builds whose upload URL expired, removes stale upload blobs, keeps fresh ones; a restarted service does it at start', async () => {
    now = new Date();
    const t0 = now;
    const first = await startService();
    let restarted: Service | null = null;
    try {
      const overdue = await first.requestUpload({ projectId: 'p1', name: 'game', executablePath: null });
      now = new Date(now.getTime() + minutes(30));
      const valid = await first.requestUpload({ projectId: 'p1', name: 'game', executablePath: null });

      // A partial upload a gateway left behind (killed mid-upload), a whole one it never handed over, and one being written right now.
      await leftBehind('upload/stale-partial', false, t0);
      await leftBehind('upload/never-handed-over', true, t0);
      await leftBehind('upload/being-written', false, t0);

      // 30 minutes in: nothing is due (the blobs were last written at the start).
      expect(await first.host.sweepUploads()).toEqual({ expired: [], removedBlobs: [] });
      expect((await status(first, overdue.build_id)).status).toBe('uploading');

      // The service stops; 61 minutes after the first ticket it starts again and sweeps at once.
      await first.host.onApplicationShutdown();
      now = new Date(now.getTime() + minutes(31));
      await touch('upload/being-written', now); // still being written
      restarted = await startService();
      const failed = await (async () => {
        for (let i = 0; i < 100; i++) {
          const b = await status(restarted!, overdue.build_id);
          if (b.status !== 'uploading') return b;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('overdue build still uploading after the start-up sweep');
      })();
      expect(failed).toMatchObject({ status: 'failed', error: UPLOAD_EXPIRED });
      expect((await status(restarted, valid.build_id)).status).toBe('uploading');
      // Sweeping again (after the start-up sweep) changes nothing: idempotent.
      expect(await restarted.host.sweepUploads()).toEqual({ expired: [], removedBlobs: [] });
      expect(await keys()).toEqual(['upload/being-written']);

      // The second ticket expires in its turn.
      now = new Date(now.getTime() + minutes(30));
      expect((await restarted.host.sweepUploads()).expired).toEqual([valid.build_id]);
      expect((await status(restarted, valid.build_id)).status).toBe('failed');
      // The expired URL is refused (403), and the blob sent with it is removed.
      await blobs.put('upload/late', (async function* () { yield Buffer.alloc(10); })());
      await expect(restarted.receiveUpload({ token: valid.token, blobKey: 'upload/late', sizeBytes: 10 })).rejects.toMatchObject({ code: 'forbidden' });
      expect(await blobs.head('upload/late')).toBeNull();
      expect(UPLOAD_URL_TTL_MS).toBe(minutes(60));
    } finally {
      await restarted?.host.onApplicationShutdown();
    }
  });

  it('resumes a processing interrupted by a stop from its upload blob, and fails one whose upload is gone', async () => {
    now = new Date();
    const service = await startService();
    try {
      const zip = rawZip([{ name: 'game.sh', data: Buffer.from('#!/bin/sh\necho hi\n'), mode: 0o100755 }]);
      const resumable = await service.requestUpload({ projectId: 'p1', name: 'resume', executablePath: null });
      const lost = await service.requestUpload({ projectId: 'p1', name: 'resume', executablePath: null });
      // Both received (the token spent, status processing) by a service that stopped before processing them.
      await blobs.put('upload/resumable', (async function* () { yield zip; })());
      for (const [ticket, key] of [[resumable, 'upload/resumable'], [lost, 'upload/lost']] as const) {
        await service.builds.handle(ticket.build_id, {
          type: 'ReceiveUpload', tokenHash: sha256(ticket.token), sizeBytes: zip.length, uploadPath: key, now: now.toISOString(),
        }, { projectId: 'p1' });
        await service.host.projections.waitForHead(buildStream(ticket.build_id));
      }
      await service.host.onApplicationShutdown();
      const again = await startService();
      try {
        const settled = async (id: string) => {
          for (let i = 0; i < 200; i++) {
            const b = await status(again, id);
            if (b.status !== 'processing') return b;
            await new Promise((r) => setTimeout(r, 25));
          }
          throw new Error(`build ${id} still processing`);
        };
        expect(await settled(resumable.build_id)).toMatchObject({ status: 'ready', executable_path: 'game.sh' });
        expect(await settled(lost.build_id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/upload is gone/) });
        expect(await blobs.head(`build/${resumable.build_id}`)).not.toBeNull();
        expect(await blobs.head('upload/resumable')).toBeNull();
      } finally {
        await again.host.onApplicationShutdown();
      }
    } finally {
      await service.host.onApplicationShutdown().catch(() => undefined);
    }
  });
});
