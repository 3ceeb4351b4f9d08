// No shared volume (ADR-0013): distributed mode with each app on its own data dir, as pods without a
// ReadWriteMany volume. A ZIP uploaded through the gateway reaches the builds service as a blob; the
// servers service, whose data dir has never seen the build, materialises it from the build's blob and
// runs the game; the signed artifact download still serves the build once the builds service's copy on
// disk is gone. Black-box over HTTP, the built apps as child processes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tcpEcho } from '../support/game-client';
import { gameProcesses, killGames } from '../support/game-processes';
import { client, eventually } from '../support/http';
import { Platform, startDistributed } from '../support/processes';
import { SAMPLE_BUILD_ENTRIES } from '../support/sample-build';

jest.setTimeout(120_000);
const ROOT = path.join(__dirname, '..', '..');
const ls = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe('distributed, each app on its own data dir', () => {
  let p: Platform;
  let api: ReturnType<typeof client>;
  let tmp: string;
  const dirOf = (app: string) => path.join(p.dataDir, app);

  beforeAll(async () => {
    p = await startDistributed('25300-25349', { SPAWNPOINT_ARTIFACT_SECRET: 'own-dirs-secret' }, { ownDataDirs: true });
    api = client(p.baseUrl, p.serverKey);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sp-own-dirs-'));
  });
  afterAll(async () => {
    if (p) killGames(dirOf('servers'));
    await p?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('runs a build on a servers service that never saw it, and serves its artifact after the builds service lost its copy', async () => {
    const zip = path.join(tmp, 'game.zip');
    execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), zip]);
    const ticket = await api.post('/v3/builds/upload-url?name=default');
    expect(ticket.status).toBe(201);
    const put = await api.put(ticket.body.upload_url, readFileSync(zip), { 'content-type': 'application/zip' });
    expect(put.status).toBe(200);
    const buildId = ticket.body.build_id as string;
    await eventually(() => api.get(`/v3/builds/${buildId}`), (r) => r.body.status === 'ready', 20_000, 'build ready');

    // The gateway kept nothing on disk; the builds service unpacked into its own dir; the servers one is empty.
    expect(ls(path.join(dirOf('gateway'), 'uploads'))).toEqual([]);
    expect(ls(path.join(dirOf('builds'), 'builds', p.projectId))).toEqual([buildId]);
    expect(ls(path.join(dirOf('servers'), 'builds'))).toEqual([]);

    const started = await api.post('/v3/servers/start', { name: 'own dirs', region: 'us-east' });
    expect(started.status).toBe(201);
    const id = started.body.instance_id as string;
    const running = await eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'running' || r.body.status === 'stopped', 30_000, 'server running');
    expect(running.body.status).toBe('running');
    const tcp = running.body.network_ports.find((x: { protocol: string }) => x.protocol === 'tcp');
    expect(await tcpEcho(tcp.host, tcp.external_port, 'hello')).toBe('echo: hello');
    // The game runs from the servers service's own copy, extracted whole (no temporary directory left).
    expect(gameProcesses(dirOf('servers')).map((g) => g.instanceId)).toEqual([id]);
    expect(ls(path.join(dirOf('servers'), 'builds', p.projectId))).toEqual([buildId]);
    const copy = path.join(dirOf('servers'), 'builds', p.projectId, buildId);
    expect(readFileSync(path.join(copy, 'server.js'), 'utf8')).toBe(readFileSync(path.join(ROOT, 'examples', 'game-server', 'server.js'), 'utf8'));
    expect(statSync(path.join(copy, 'server')).mode & 0o111).not.toBe(0);
    expect((await api.delete(`/v3/servers/${id}`)).status).toBe(200);

    // The builds service's disk loses the build: the artifact is served from its blob all the same.
    rmSync(path.join(dirOf('builds'), 'builds'), { recursive: true, force: true });
    const signed = await api.post(`/v3/builds/${buildId}/artifact-url`);
    expect(signed.status).toBe(200);
    const res = await fetch(signed.body.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${buildId}.tar.gz"`);
    const archive = path.join(tmp, 'artifact.tar.gz');
    writeFileSync(archive, Buffer.from(await res.arrayBuffer()));
    expect(execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n').filter(Boolean).sort()).toEqual(SAMPLE_BUILD_ENTRIES);

    // Deleting the build removes its blob: the download is 404.
    expect((await api.delete(`/v3/builds/${buildId}`)).status).toBe(200);
    expect((await fetch(signed.body.url)).status).toBe(404);
  });
});
