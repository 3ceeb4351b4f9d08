// Signed build artifact URLs, black-box over HTTP against the built platform in both modes: what a game pod on
// the Kubernetes runtime downloads (a tar.gz of the unpacked ZIP build, executable bits kept).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { signArtifactUrl } from '@spawnpoint/proto';
import { client, eventually } from '../support/http';
import { ADMIN_TOKEN, Platform, startDistributed, startStandalone } from '../support/processes';
import { SAMPLE_BUILD_ENTRIES } from '../support/sample-build';

type Api = ReturnType<typeof client>;
const ROOT = path.join(__dirname, '..', '..');
const SECRET = 'e2e-artifact-secret';

async function uploadSample(api: Api, name: string): Promise<string> {
  const zip = path.join(os.tmpdir(), `sp-artifact-${process.pid}-${Date.now()}.zip`);
  execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), zip]);
  try {
    const ticket = await api.post(`/v3/builds/upload-url?name=${name}`);
    expect(ticket.status).toBe(201);
    await api.put(ticket.body.upload_url, readFileSync(zip), { 'content-type': 'application/zip' });
    await eventually(() => api.get(`/v3/builds/${ticket.body.build_id}`), (r) => r.body.status === 'ready', 20_000, 'build ready');
    return ticket.body.build_id as string;
  } finally {
    rmSync(zip, { force: true });
  }
}

const withParams = (url: string, change: (q: URLSearchParams) => void) => {
  const u = new URL(url);
  change(u.searchParams);
  return u.toString();
};

function describeArtifacts(mode: string, start: () => Promise<Platform>): void {
describe(`build artifacts (${mode})`, () => {
  jest.setTimeout(120_000);
  let p: Platform;
  let api: Api;
  let other: Api;
  let buildId: string;
  let otherBuildId: string;
  let tmp: string;

  beforeAll(async () => {
    p = await start();
    api = client(p.baseUrl, p.serverKey);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sp-artifact-'));
    buildId = await uploadSample(api, 'default');
    const created = await client(p.baseUrl).post('/admin/projects', { name: 'other', plan: 'pro' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(created.status).toBe(201);
    other = client(p.baseUrl, created.body.server_key);
    otherBuildId = await uploadSample(other, 'theirs');
  });

  afterAll(async () => {
    await p?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('serves a ready ZIP build as a tar.gz of its unpacked directory, executable bits kept, without an api-key', async () => {
    const signed = await api.post(`/v3/builds/${buildId}/artifact-url`);
    expect(signed.status).toBe(200);
    expect(signed.body).toEqual({ build_id: buildId, url: expect.stringMatching(/\/api\/v3\/builds\/[0-9a-f-]+\/artifact\?expires=\d+&signature=[0-9a-f]{64}$/), expires_at: expect.any(String) });
    const ttl = Date.parse(signed.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(55 * 60_000);
    expect(ttl).toBeLessThanOrEqual(60 * 60_000);

    const res = await fetch(signed.body.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const archive = path.join(tmp, 'build.tar.gz');
    writeFileSync(archive, Buffer.from(await res.arrayBuffer()));
    const out = path.join(tmp, 'out');
    execFileSync('mkdir', ['-p', out]);
    execFileSync('tar', ['-xzf', archive, '-C', out]);
    expect(statSync(path.join(out, 'server')).mode & 0o111).not.toBe(0);
    expect(readFileSync(path.join(out, 'server.js'), 'utf8')).toBe(readFileSync(path.join(ROOT, 'examples', 'game-server', 'server.js'), 'utf8'));
    // No `./` entry: an unprivileged extract into the pod's /game must not try to chmod /game itself.
    const listing = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(listing.sort()).toEqual(SAMPLE_BUILD_ENTRIES);
  });

  it('refuses a tampered signature, a tampered expiry and an expired URL with 403', async () => {
    const { body } = await api.post(`/v3/builds/${buildId}/artifact-url`);
    const flip = (s: string) => `${s.slice(0, -1)}${s.endsWith('0') ? '1' : '0'}`;
    expect((await fetch(withParams(body.url, (q) => q.set('signature', flip(q.get('signature')!))))).status).toBe(403);
    expect((await fetch(withParams(body.url, (q) => q.set('expires', String(Number(q.get('expires')) + 3600))))).status).toBe(403);
    expect((await fetch(withParams(body.url, (q) => q.delete('signature')))).status).toBe(403);
    const base = p.baseUrl.replace(/\/api$/, '');
    const expired = signArtifactUrl({ baseUrl: base, secret: SECRET, buildId, now: new Date(Date.now() - 2 * 3600_000) });
    const res = await fetch(expired.url);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toMatch(/expired/);
    // The same build signed now with the same secret works: the 403 was the expiry.
    expect((await fetch(signArtifactUrl({ baseUrl: base, secret: SECRET, buildId, now: new Date() }).url)).status).toBe(200);
  });

  it('scopes a URL to its build: another build id with it is 403, and another project cannot get one', async () => {
    const { body } = await api.post(`/v3/builds/${buildId}/artifact-url`);
    expect((await fetch(body.url.replace(buildId, otherBuildId))).status).toBe(403);
    expect((await other.post(`/v3/builds/${buildId}/artifact-url`)).status).toBe(404);
    expect((await client(p.baseUrl, p.clientKey).post(`/v3/builds/${buildId}/artifact-url`)).status).toBe(403);
    expect((await client(p.baseUrl).post(`/v3/builds/${buildId}/artifact-url`)).status).toBe(401);
  });

  it('answers 404 for unknown or deleted builds and 409 for image builds, with a valid signature', async () => {
    const base = p.baseUrl.replace(/\/api$/, '');
    const sign = (id: string) => signArtifactUrl({ baseUrl: base, secret: SECRET, buildId: id, now: new Date() }).url;
    expect((await fetch(sign('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    const image = await api.post('/v3/builds/docker-image', { name: 'img', image_url: 'example/game:1' });
    expect(image.status).toBe(201);
    expect((await fetch(sign(image.body.build_id))).status).toBe(409);
    expect((await api.post(`/v3/builds/${image.body.build_id}/artifact-url`)).status).toBe(409);
    const doomed = await uploadSample(api, 'doomed');
    const url = (await api.post(`/v3/builds/${doomed}/artifact-url`)).body.url;
    expect((await fetch(url)).status).toBe(200);
    expect((await api.delete(`/v3/builds/${doomed}`)).status).toBe(200);
    expect((await fetch(url)).status).toBe(404);
  });
});
}

// In distributed mode the gateway serves the artifact and signs URLs; the secret must be the same everywhere.
describeArtifacts('standalone', () => startStandalone({ portRange: '19700-19799', env: { SPAWNPOINT_ARTIFACT_SECRET: SECRET } }));
describeArtifacts('distributed', () => startDistributed('25100-25199', { SPAWNPOINT_ARTIFACT_SECRET: SECRET }));
