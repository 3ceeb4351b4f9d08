// Every builds use case through its handler, reached over the in-process bus as the gateway reaches it,
// on the PostgreSQL event store and read models (uploads and artifacts as blobs there) and real files.
// `servers.usesBuild` is answered by a handler on the same bus (the servers service's part of a delete).
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { RemoteError } from '@spawnpoint/messaging';
import { BLOBS, BlobStore } from '@spawnpoint/platform';
import { ArtifactBlob, BuildList, BuildLogs, BuildView, ResolvedBuild, SUBJECTS, UploadTicket } from '@spawnpoint/proto';
import { ServiceBed, startServiceBed, uploadZip } from '../../../test/support/service-bed';
import { BuildsModule } from './builds.module';
import { rawZip } from './zip/testing/raw-zip';

describe('builds handlers (in-process bus, PostgreSQL)', () => {
  let bed: ServiceBed;
  const inUse = new Set<string>();
  beforeAll(async () => {
    bed = await startServiceBed('buildh', [BuildsModule]);
    await bed.bus.handle(SUBJECTS.servers.usesBuild, (r: { buildId: string }) => ({ inUse: inUse.has(r.buildId) }));
  });
  afterAll(() => bed?.close());

  const P = 'project-1';
  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: RemoteError) => e.body);
  const get = (buildId: string, projectId = P) => bed.request<BuildView>(SUBJECTS.builds.get, { projectId, buildId });

  const blobs = () => bed.app.get<BlobStore>(BLOBS);
  /** Upload blobs left over (processing removes its upload blob, whatever the outcome). */
  const uploadBlobs = async () => (await blobs().completedBefore('upload/', new Date(Date.now() + 60_000))).length;

  /** Requests an upload and hands the service a ZIP as the gateway does (in an upload blob). */
  async function upload(name: string, entries = [{ name: 'game.sh', data: Buffer.from('#!/bin/sh\necho hi\n'), mode: 0o100755 }]): Promise<BuildView> {
    const ticket = await bed.request<UploadTicket>(SUBJECTS.builds.requestUpload, { projectId: P, name, executablePath: null });
    const dir = path.join(bed.config.dataDir, 'uploads');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${ticket.build_id}.zip`);
    writeFileSync(file, rawZip(entries));
    await uploadZip(bed, ticket.token, file);
    rmSync(file);
    for (let i = 0; i < 200; i++) {
      const b = await get(ticket.build_id);
      if (b.status !== 'processing') return b;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('build still processing');
  }

  it('RequestUpload: versions per name, a single-use token', async () => {
    const a = await bed.request<UploadTicket>(SUBJECTS.builds.requestUpload, { projectId: P, name: 'versions', executablePath: null });
    const b = await bed.request<UploadTicket>(SUBJECTS.builds.requestUpload, { projectId: P, name: 'versions', executablePath: null });
    expect([a.version, b.version]).toEqual([1, 2]);
    expect(a.token.startsWith(`${a.build_id}.`)).toBe(true);
    expect(await get(a.build_id)).toMatchObject({ status: 'uploading', name: 'versions', version: 1 });
  });

  it('ReceiveUpload: a good ZIP becomes ready; the token cannot be used twice; a hostile ZIP fails the build', async () => {
    const ready = await upload('good');
    expect(ready).toMatchObject({ status: 'ready', executable_path: 'game.sh', build_type: 'zip', image_url: null });
    const evil = await upload('evil', [{ name: '../escape.sh', data: Buffer.from('x') }]);
    expect(evil.status).toBe('failed');
    expect(evil.error).toBeTruthy();
    expect(existsSync(path.join(bed.config.dataDir, 'builds', 'escape.sh'))).toBe(false);
    expect(await blobs().head(`build/${evil.build_id}`)).toBeNull();
    await blobs().put('upload/forged', (async function* () { yield Buffer.from('PK'); })());
    const forged = await refusal(bed.request(SUBJECTS.builds.receiveUpload, { token: `${ready.build_id}.forged`, blobKey: 'upload/forged', sizeBytes: 2 }));
    expect(forged).toMatchObject({ status: 403 });
    // The refused upload's blob is gone too, and so are the processed ones.
    expect(await uploadBlobs()).toBe(0);
  });

  it('RegisterImage: an image build is ready at once', async () => {
    const image = await bed.request<BuildView>(SUBJECTS.builds.registerImage, { projectId: P, name: 'img', image: 'registry.example/game:1' });
    expect(image).toMatchObject({ build_type: 'docker_image', status: 'ready', image_url: 'registry.example/game:1', version: 1, executable_path: null });
  });

  it('GetBuild / ListBuilds: pages newest first with the total; another project sees 404 and an empty list', async () => {
    const b = await upload('listed');
    const b2 = await upload('listed');
    expect(await refusal(get(b.build_id, 'project-2'))).toMatchObject({ status: 404 });
    const page = (name: string | undefined, limit: number, offset: number, projectId = P) => bed.request<BuildList>(SUBJECTS.builds.list, { projectId, name, limit, offset });
    const first = await page('listed', 1, 0);
    expect(first).toMatchObject({ total: 2, limit: 1, offset: 0, has_more: true });
    expect(first.builds.map((x) => x.build_id)).toEqual([b2.build_id]);
    const second = await page('listed', 1, 1);
    expect(second).toMatchObject({ total: 2, limit: 1, offset: 1, has_more: false });
    expect(second.builds.map((x) => x.build_id)).toEqual([b.build_id]);
    expect(await page('listed', 10, 5)).toEqual({ builds: [], total: 2, limit: 10, offset: 5, has_more: false });
    expect(await page(undefined, 100, 0, 'project-2')).toEqual({ builds: [], total: 0, limit: 100, offset: 0, has_more: false });
  });

  it('GetBuildLogs: what processing did, oldest first; the reason of a failure; 404 for another project', async () => {
    const ready = await upload('logged');
    const logs = await bed.request<BuildLogs>(SUBJECTS.builds.logs, { projectId: P, buildId: ready.build_id });
    expect(logs.build_id).toBe(ready.build_id);
    const messages = logs.logs.map((l) => l.message);
    expect(messages[0]).toMatch(/^upload URL issued for version 1 of "logged"/);
    expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/^ZIP received \(\d+ bytes\)/), expect.stringMatching(/^checks passed: 1 files/),
      'executable: game.sh (the only file with the executable bit set)', expect.stringMatching(/^unpacked 1 files/)]));
    expect(messages[messages.length - 1]).toMatch(/^ready: executable game.sh/);
    expect(logs.logs.every((l) => l.level === 'info')).toBe(true);
    const times = logs.logs.map((l) => l.timestamp);
    expect([...times].sort()).toEqual(times);
    const failed = await upload('logged', [{ name: 'README', data: Buffer.from('no executable here') }]);
    const failedLogs = (await bed.request<BuildLogs>(SUBJECTS.builds.logs, { projectId: P, buildId: failed.build_id })).logs;
    expect(failedLogs[failedLogs.length - 1]).toMatchObject({ level: 'error', message: `failed: ${failed.error}` });
    expect(failed.error).toMatch(/no executable found/);
    expect(await refusal(bed.request(SUBJECTS.builds.logs, { projectId: 'project-2', buildId: ready.build_id }))).toMatchObject({ status: 404 });
  });

  it('ResolveBuild: the latest ready version, or the pinned one; 404 for none', async () => {
    const v1 = await upload('resolve');
    const v2 = await upload('resolve');
    expect(await bed.request<ResolvedBuild>(SUBJECTS.builds.resolve, { projectId: P, name: 'resolve', version: null })).toMatchObject({ buildId: v2.build_id, version: 2 });
    const pinned = await bed.request<ResolvedBuild>(SUBJECTS.builds.resolve, { projectId: P, name: 'resolve', version: 1 });
    expect(pinned).toMatchObject({ buildId: v1.build_id, kind: 'zip', executablePath: 'game.sh' });
    expect(await refusal(bed.request(SUBJECTS.builds.resolve, { projectId: P, name: 'nothing', version: null }))).toMatchObject({ status: 404 });
    // Another project's name is not this one's; a deleted version is never resolved (the latest left is).
    expect(await refusal(bed.request(SUBJECTS.builds.resolve, { projectId: 'project-2', name: 'resolve', version: null }))).toMatchObject({ status: 404 });
    await bed.request(SUBJECTS.builds.delete, { projectId: P, buildId: v2.build_id });
    expect(await bed.request<ResolvedBuild>(SUBJECTS.builds.resolve, { projectId: P, name: 'resolve', version: null })).toMatchObject({ buildId: v1.build_id, version: 1 });
    expect(await refusal(bed.request(SUBJECTS.builds.resolve, { projectId: P, name: 'resolve', version: 2 }))).toMatchObject({ status: 404 });
  });

  it('GetArtifactBlob: the stored tar.gz of a ready ZIP build (also once the local directory is gone); 409 for an image', async () => {
    const b = await upload('artifact');
    const found = await bed.request<ArtifactBlob>(SUBJECTS.builds.artifactBlob, { buildId: b.build_id });
    expect(found).toEqual({ buildId: b.build_id, blobKey: `build/${b.build_id}` });
    rmSync(path.join(bed.config.dataDir, 'builds'), { recursive: true, force: true });
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'sp-artifact-blob-'));
    try {
      await pipeline((await blobs().open(found.blobKey))!, createWriteStream(path.join(tmp, 'a.tar.gz')));
      expect(execFileSync('tar', ['-tzf', path.join(tmp, 'a.tar.gz')], { encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual(['./game.sh']);
      execFileSync('tar', ['-xzf', path.join(tmp, 'a.tar.gz'), '-C', tmp]);
      expect(readFileSync(path.join(tmp, 'game.sh'), 'utf8')).toBe('#!/bin/sh\necho hi\n');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    expect((await bed.request<ArtifactBlob>(SUBJECTS.builds.artifactBlob, { buildId: b.build_id })).blobKey).toBe(found.blobKey);
    const image = await bed.request<BuildView>(SUBJECTS.builds.registerImage, { projectId: P, name: 'img2', image: 'registry.example/game:2' });
    expect(await refusal(bed.request(SUBJECTS.builds.artifactBlob, { buildId: image.build_id }))).toMatchObject({ status: 409 });
    expect(await refusal(bed.request(SUBJECTS.builds.artifactBlob, { buildId: '00000000-0000-4000-8000-000000000000' }))).toMatchObject({ status: 404 });
  });

  it('DeleteBuild: refused while a server runs it, then deleted with its files', async () => {
    const b = await upload('delete-me');
    const dir = path.join(bed.config.dataDir, 'builds', P, b.build_id);
    expect(existsSync(dir)).toBe(true);
    inUse.add(b.build_id);
    expect(await refusal(bed.request(SUBJECTS.builds.delete, { projectId: P, buildId: b.build_id }))).toMatchObject({ status: 409 });
    inUse.delete(b.build_id);
    expect(await bed.request(SUBJECTS.builds.delete, { projectId: P, buildId: b.build_id })).toEqual({ status: 'build_deleted', build_id: b.build_id });
    expect(existsSync(dir)).toBe(false);
    expect(await blobs().head(`build/${b.build_id}`)).toBeNull();
    expect(await refusal(get(b.build_id))).toMatchObject({ status: 404 });
    expect(await refusal(bed.request(SUBJECTS.builds.artifactBlob, { buildId: b.build_id }))).toMatchObject({ status: 404 });
  });
});
