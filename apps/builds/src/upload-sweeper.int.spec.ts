// Abandoned uploads, through the real builds service on PostgreSQL and real files: a build still
// `uploading` after its upload URL expired is failed (also by a service started after a restart), a
// partial file nobody writes any more is removed, fresh files and valid tickets are left alone.
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UPLOAD_EXPIRED } from '@spawnpoint/domain';
import { PostgresCheckpointStore } from '@spawnpoint/eventstore';
import { InProcessBus } from '@spawnpoint/messaging';
import { loadConfig, Platform } from '@spawnpoint/platform';
import { createProjectionTestBed, ProjectionTestBed } from '../../../test/support/projections';
import { BuildProcessing } from './build-processing';
import { BuildVersions } from './build-versions';
import { BuildViews } from './build-views';
import { BuildsReadModel } from './builds-read-model';
import { BuildsHost, UPLOAD_URL_TTL_MS } from './builds.host';
import { ReceiveUpload, ReceiveUploadHandler } from './commands/receive-upload.handler';
import { RequestUpload, RequestUploadHandler } from './commands/request-upload.handler';

/** The builds host with the handlers this test drives. */
interface Service {
  host: BuildsHost;
  requestUpload(r: RequestUpload['request']): ReturnType<RequestUploadHandler['execute']>;
  receiveUpload(r: ReceiveUpload['request']): ReturnType<ReceiveUploadHandler['execute']>;
  views: BuildViews;
}

describe('builds service: abandoned uploads', () => {
  let bed: ProjectionTestBed;
  let bus: InProcessBus;
  let dataDir: string;
  let now = new Date();
  const minutes = (m: number) => m * 60_000;

  beforeAll(async () => {
    bed = await createProjectionTestBed('uploadsweep');
    bus = new InProcessBus();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-upload-sweep-'));
  });
  afterAll(async () => {
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
    const processing = new BuildProcessing(platform);
    const readModel = new BuildsReadModel(platform);
    const host = new BuildsHost(platform, readModel, processing);
    await host.onModuleInit();
    await host.onApplicationBootstrap();
    const views = new BuildViews(platform);
    return {
      host,
      views,
      requestUpload: (r) => new RequestUploadHandler(readModel, new BuildVersions(platform)).execute(new RequestUpload(r)),
      receiveUpload: (r) => new ReceiveUploadHandler(readModel, processing, views).execute(new ReceiveUpload(r)),
    };
  }
  const status = async (service: Service, buildId: string) => {
    await service.host.projections.waitForHead(`build-${buildId}`);
    return service.views.get('p1', buildId);
  };

  it('fails builds whose upload URL expired, removes stale partial files, keeps fresh ones; a restarted service does it at start', async () => {
    now = new Date();
    const t0 = now;
    const first = await startService();
    const uploads = path.join(dataDir, 'uploads');
    mkdirSync(uploads, { recursive: true });
    let restarted: Service | null = null;
    try {
      const overdue = await first.requestUpload({ projectId: 'p1', name: 'game', executablePath: null });
      now = new Date(now.getTime() + minutes(30));
      const valid = await first.requestUpload({ projectId: 'p1', name: 'game', executablePath: null });

      // A partial upload the gateway left behind (killed mid-upload), and one being written right now.
      const stale = path.join(uploads, 'stale-partial.zip');
      const fresh = path.join(uploads, 'being-written.zip');
      writeFileSync(stale, Buffer.alloc(1024));
      writeFileSync(fresh, Buffer.alloc(1024));
      const seconds = (d: Date) => d.getTime() / 1000;

      // 30 minutes in: nothing is due (the partial file was last written at the start).
      utimesSync(stale, seconds(t0), seconds(t0));
      expect(await first.host.sweepUploads()).toEqual({ expired: [], removedFiles: [] });
      expect((await status(first, overdue.build_id)).status).toBe('uploading');

      // The service stops; 61 minutes after the first ticket it starts again and sweeps at once.
      await first.host.onApplicationShutdown();
      now = new Date(now.getTime() + minutes(31));
      utimesSync(fresh, seconds(now), seconds(now)); // still being written
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
      expect(await restarted.host.sweepUploads()).toEqual({ expired: [], removedFiles: [] });
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(fresh)).toBe(true);

      // The second ticket expires in its turn.
      now = new Date(now.getTime() + minutes(30));
      expect((await restarted.host.sweepUploads()).expired).toEqual([valid.build_id]);
      expect((await status(restarted, valid.build_id)).status).toBe('failed');
      // The expired URL is refused (403), and no file is taken from it.
      const late = path.join(uploads, 'late.zip');
      writeFileSync(late, Buffer.alloc(10));
      await expect(restarted.receiveUpload({ token: valid.token, path: late, sizeBytes: 10 })).rejects.toMatchObject({ code: 'forbidden' });
      expect(existsSync(late)).toBe(false);
      expect(UPLOAD_URL_TTL_MS).toBe(minutes(60));
    } finally {
      await restarted?.host.onApplicationShutdown();
    }
  });
});
