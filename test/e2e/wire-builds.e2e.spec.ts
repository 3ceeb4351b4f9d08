// Builds as the hosted service's clients see them, black-box over HTTP in both modes: the v3 record's field
// names and types, docker-image with image_url, offset paging, the PUT of an upload URL under any
// Content-Type or none, build logs (ready and failed), and the v2 builds routes with the published v2
// document's status codes and shapes (client() checks every v2 answer against it; raw fetches call
// assertPublished themselves).
import http from 'node:http';
import { rawZip } from '../../apps/builds/src/zip/testing/raw-zip';
import { client, eventually } from '../support/http';
import { assertPublished } from '../support/playflow-published';
import { ADMIN_TOKEN, Platform, startDistributed, startStandalone } from '../support/processes';

type Api = ReturnType<typeof client>;

const GAME_ZIP = rawZip([
  { name: 'game/server', data: Buffer.from('#!/bin/sh\nexec sleep 600\n'), mode: 0o100755 },
  { name: 'game/data/level0', data: Buffer.from('level data') },
]);
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BUILD_FIELDS = ['build_id', 'build_type', 'created_at', 'error', 'executable_path', 'image_url', 'name', 'size_bytes', 'status', 'updated_at', 'version'];

/** A PUT with exactly these headers (fetch would add a Content-Type of its own to some bodies). */
function putRaw(url: string, body: Buffer, contentType?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-length': body.length };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const req = http.request(url, { method: 'PUT', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => { text += d; }).on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The v2 direct upload: a multipart form, checked against the published document like client()'s answers. */
async function postForm(url: string, key: string, fill: (form: FormData) => void): Promise<{ status: number; body: any }> {
  const form = new FormData();
  fill(form);
  const res = await fetch(url, { method: 'POST', headers: { 'api-key': key }, body: form });
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  assertPublished('POST', url, res.status, body);
  return { status: res.status, body };
}

function expectBuildRecord(b: Record<string, unknown>): void {
  expect(Object.keys(b).sort()).toEqual(BUILD_FIELDS);
  expect(b.build_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(typeof b.name).toBe('string');
  expect(Number.isInteger(b.version)).toBe(true);
  expect(['uploading', 'processing', 'ready', 'failed']).toContain(b.status);
  expect(['zip', 'docker_image']).toContain(b.build_type);
  expect(b.created_at).toMatch(ISO_MS);
  expect(b.updated_at).toMatch(ISO_MS);
  for (const k of ['image_url', 'executable_path', 'error']) expect(b[k] === null || typeof b[k] === 'string').toBe(true);
  expect(b.size_bytes === null || Number.isInteger(b.size_bytes)).toBe(true);
}

function describeWireBuilds(mode: string, start: () => Promise<Platform>): void {
describe(`builds on the wire (${mode})`, () => {
  jest.setTimeout(120_000);
  let p: Platform;
  let api: Api;
  let clientApi: Api;
  let other: Api;

  const ready = (id: string) => eventually(() => api.get(`/v3/builds/${id}`), (r) => r.body.status === 'ready' || r.body.status === 'failed', 20_000, 'build processed');

  beforeAll(async () => {
    p = await start();
    api = client(p.baseUrl, p.serverKey);
    clientApi = client(p.baseUrl, p.clientKey);
    const created = await client(p.baseUrl).post('/admin/projects', { name: 'wire-other', plan: 'pro' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(created.status).toBe(201);
    other = client(p.baseUrl, created.body.server_key);
  });
  afterAll(() => p?.stop());

  it('takes the ZIP on the PUT with no Content-Type, application/json or text/plain alike: processing, then ready, in the hosted service\'s record shape', async () => {
    for (const contentType of [undefined, 'application/json', 'text/plain', 'application/octet-stream']) {
      const ticket = await api.post('/v3/builds/upload-url?name=wire-put');
      expect(ticket.status).toBe(201);
      const put = await putRaw(ticket.body.upload_url, GAME_ZIP, contentType);
      expect({ contentType, status: put.status }).toEqual({ contentType, status: 200 });
      expectBuildRecord(put.body);
      expect(put.body).toMatchObject({ build_id: ticket.body.build_id, status: 'processing', build_type: 'zip', image_url: null, size_bytes: GAME_ZIP.length });
      const done = (await ready(ticket.body.build_id)).body;
      expectBuildRecord(done);
      expect(done).toMatchObject({ status: 'ready', build_type: 'zip', image_url: null, executable_path: 'game/server', error: null });
      expect(done.size_bytes).toBe('#!/bin/sh\nexec sleep 600\n'.length + 'level data'.length);
    }
    // The URL is single-use, whatever the Content-Type of the second try.
    const ticket = await api.post('/v3/builds/upload-url?name=wire-put');
    expect((await putRaw(ticket.body.upload_url, GAME_ZIP)).status).toBe(200);
    expect((await putRaw(ticket.body.upload_url, GAME_ZIP, 'application/json')).status).toBe(403);
  });

  it('takes an empty application/json body on a POST that needs none', async () => {
    const ticket = await api.post('/v3/builds/upload-url?name=wire-empty', '');
    expect(ticket.status).toBe(201);
    expect(ticket.body).toMatchObject({ name: 'wire-empty', version: 1 });
  });

  it('registers a container image from {name, image_url}: 201, ready at once; the old field `image` is refused', async () => {
    const res = await api.post('/v3/builds/docker-image', { name: 'wire-img', image_url: 'ghcr.io/studio/game:1.4' });
    expect(res.status).toBe(201);
    expectBuildRecord(res.body);
    expect(res.body).toMatchObject({ name: 'wire-img', version: 1, status: 'ready', build_type: 'docker_image', image_url: 'ghcr.io/studio/game:1.4', executable_path: null });
    expect((await api.get(`/v3/builds/${res.body.build_id}`)).body).toEqual(res.body);
    const old = await api.post('/v3/builds/docker-image', { name: 'wire-img', image: 'ghcr.io/studio/game:1.4' });
    expect(old.status).toBe(422);
    expect(old.body.detail).toEqual(expect.arrayContaining([
      expect.objectContaining({ loc: ['body', 'image'], type: 'extra_forbidden' }), expect.objectContaining({ loc: ['body', 'image_url'] }),
    ]));
    expect((await api.post('/v3/builds/docker-image', { name: 'wire-img', image_url: 'has space' })).status).toBe(422);
    expect((await clientApi.post('/v3/builds/docker-image', { name: 'wire-img', image_url: 'x/y:1' })).status).toBe(403);
  });

  it('pages the list newest first by limit and offset, with total and has_more, filtered by name', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api.post('/v3/builds/docker-image', { name: 'wire-page', image_url: `example/game:${i}` })).body.build_id);
    await api.post('/v3/builds/docker-image', { name: 'wire-page-other', image_url: 'example/other:1' });
    const newestFirst = [...ids].reverse();
    const first = await clientApi.get('/v3/builds?name=wire-page&limit=2');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['builds', 'has_more', 'limit', 'offset', 'total']);
    expect(first.body).toMatchObject({ total: 5, limit: 2, offset: 0, has_more: true });
    expect(first.body.builds.map((b: { build_id: string }) => b.build_id)).toEqual(newestFirst.slice(0, 2));
    first.body.builds.forEach(expectBuildRecord);
    const middle = await api.get('/v3/builds?name=wire-page&limit=2&offset=2');
    expect(middle.body).toMatchObject({ total: 5, limit: 2, offset: 2, has_more: true });
    expect(middle.body.builds.map((b: { build_id: string }) => b.build_id)).toEqual(newestFirst.slice(2, 4));
    const last = await api.get('/v3/builds?name=wire-page&limit=2&offset=4');
    expect(last.body).toMatchObject({ total: 5, limit: 2, offset: 4, has_more: false });
    expect(last.body.builds.map((b: { build_id: string }) => b.build_id)).toEqual(newestFirst.slice(4));
    expect((await api.get('/v3/builds?name=wire-page&offset=9')).body).toEqual({ builds: [], total: 5, limit: 50, offset: 9, has_more: false });
    expect((await api.get('/v3/builds?name=wire-page')).body).toMatchObject({ total: 5, limit: 50, offset: 0, has_more: false });
    const all = await api.get('/v3/builds?limit=100');
    expect(all.body.total).toBeGreaterThanOrEqual(6);
    expect(all.body.builds.map((b: { name: string }) => b.name)).toEqual(expect.arrayContaining(['wire-page', 'wire-page-other']));
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'offset=-1', 'offset=1.5']) {
      const res = await api.get(`/v3/builds?${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 422 });
      expect(res.body.detail[0].loc).toEqual(['query', bad.split('=')[0]]);
    }
    expect((await other.get('/v3/builds?name=wire-page')).body).toMatchObject({ builds: [], total: 0, has_more: false });
  });

  it('tells what processing did: a ready build\'s checks, unpacking and executable; a failed build\'s reason (bad ZIP)', async () => {
    const ticket = await api.post('/v3/builds/upload-url?name=wire-logs');
    await putRaw(ticket.body.upload_url, GAME_ZIP, 'application/zip');
    await ready(ticket.body.build_id);
    const logs = await clientApi.get(`/v3/builds/${ticket.body.build_id}/logs`);
    expect(logs.status).toBe(200);
    expect(Object.keys(logs.body).sort()).toEqual(['build_id', 'logs']);
    expect(logs.body.build_id).toBe(ticket.body.build_id);
    for (const line of logs.body.logs) {
      expect(Object.keys(line).sort()).toEqual(['level', 'message', 'timestamp']);
      expect(line.timestamp).toMatch(ISO_MS);
      expect(['info', 'warn', 'error']).toContain(line.level);
    }
    const messages: string[] = logs.body.logs.map((l: { message: string }) => l.message);
    expect(messages[0]).toMatch(/^upload URL issued for version 1 of "wire-logs"/);
    expect(messages).toEqual(expect.arrayContaining([
      `ZIP received (${GAME_ZIP.length} bytes); processing started`,
      `checking the archive: 2 entries, ${GAME_ZIP.length} bytes`,
      'checks passed: 2 files and 0 folders, 35 bytes uncompressed; no absolute paths, "..", links or special files',
      'executable: game/server (a file named "server")',
      expect.stringMatching(/^unpacked 2 files \(\d+ bytes\); game\/server marked executable$/),
    ]));
    expect(messages[messages.length - 1]).toMatch(/^ready: executable game\/server/);
    const stamps = logs.body.logs.map((l: { timestamp: string }) => l.timestamp);
    expect([...stamps].sort()).toEqual(stamps);

    const bad = await api.post('/v3/builds/upload-url?name=wire-logs');
    await putRaw(bad.body.upload_url, Buffer.from('this is not a zip file at all'), 'application/zip');
    const failed = (await ready(bad.body.build_id)).body;
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringMatching(/^not a valid ZIP archive/) });
    const failedLogs = (await api.get(`/v3/builds/${bad.body.build_id}/logs`)).body.logs;
    expect(failedLogs[failedLogs.length - 1]).toEqual({ timestamp: failed.updated_at, level: 'error', message: `failed: ${failed.error}` });

    const image = await api.post('/v3/builds/docker-image', { name: 'wire-logs-img', image_url: 'example/game:7' });
    expect((await api.get(`/v3/builds/${image.body.build_id}/logs`)).body.logs).toEqual([
      { timestamp: image.body.created_at, level: 'info', message: 'container image example/game:7 registered as version 1 of "wire-logs-img"; nothing to process: ready' },
    ]);
    expect((await other.get(`/v3/builds/${ticket.body.build_id}/logs`)).status).toBe(404);
    expect((await api.get('/v3/builds/00000000-0000-4000-8000-000000000000/logs')).status).toBe(404);
    expect((await api.get('/v3/builds/not-a-uuid/logs')).status).toBe(422);
    expect((await client(p.baseUrl).get(`/v3/builds/${ticket.body.build_id}/logs`)).status).toBe(401);
  });

  it('serves the v2 builds life as the published v2 document gives it: upload-url (empty JSON body), PUT, multipart upload 202, list, get, delete', async () => {
    const v2 = '/v2/builds/builds';
    // The editor uploader: POST with Content-Type application/json and an empty body, then a PUT of application/octet-stream.
    const url = await api.post(`${v2}/upload-url?name=wire-v2`, '');
    expect(url.status).toBe(200);
    expect(url.body).toMatchObject({ name: 'wire-v2', upload_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v3\/builds\/uploads\//), message: expect.any(String) });
    const put = await putRaw(url.body.upload_url, GAME_ZIP, 'application/octet-stream');
    expect(put.status).toBe(200);
    await ready(url.body.build_id);
    const got = await clientApi.get(`${v2}/${url.body.build_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      name: 'wire-v2', found: true, message: expect.any(String),
      build: { build_id: url.body.build_id, name: 'wire-v2', version: 1, status: 'ready', created_at: expect.stringMatching(ISO_MS), updated_at: expect.stringMatching(ISO_MS) },
    });
    // Unknown body fields and a default name: ignored / "default".
    const named = await api.post(`${v2}/upload-url?unknown=1`, { anything: true });
    expect(named.status).toBe(200);
    expect(named.body.name).toBe('default');
    expect((await api.post(`${v2}/upload-url?name=bad name`, '')).status).toBe(422);
    expect((await clientApi.post(`${v2}/upload-url?name=wire-v2`, '')).status).toBe(403);

    // The direct upload: one file part "file".
    const upload = await postForm(`${p.baseUrl}${v2}/upload?name=wire-v2`, p.serverKey, (f) => f.append('file', new Blob([GAME_ZIP]), 'build.zip'));
    expect(upload.status).toBe(202);
    expect(upload.body).toEqual({
      build_id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'wire-v2', status: 'upload_started', message: expect.any(String), version: 2,
      file_size: GAME_ZIP.length, upload_time: expect.stringMatching(ISO_MS),
    });
    const uploaded = (await ready(upload.body.build_id)).body;
    expect(uploaded).toMatchObject({ status: 'ready', executable_path: 'game/server', size_bytes: expect.any(Number) });
    const refused = async (fill: (f: FormData) => void, status: number, key = p.serverKey) => {
      const res = await postForm(`${p.baseUrl}${v2}/upload?name=wire-v2`, key, fill);
      expect(res.status).toBe(status);
      return res.body;
    };
    expect((await refused((f) => f.append('note', 'no file'), 422)).detail).toEqual([{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }]);
    expect((await refused((f) => f.append('upload', new Blob([GAME_ZIP]), 'b.zip'), 422)).detail[0].loc).toEqual(['body', 'file']);
    expect((await refused((f) => { f.append('file', new Blob([GAME_ZIP]), 'a.zip'); f.append('file', new Blob([GAME_ZIP]), 'b.zip'); }, 422)).detail[0].type).toBe('too_many_files');
    await refused((f) => f.append('file', new Blob([GAME_ZIP]), 'a.zip'), 403, p.clientKey);
    const json = await api.post(`${v2}/upload?name=wire-v2`, { file: 'not a form' });
    expect(json.status).toBe(422);
    // None of the refused uploads made a build.
    const list = await clientApi.get(`${v2}?name=wire-v2&page=2`);
    expect(list.status).toBe(200);
    expect(list.body.total_builds).toBe(2);
    expect(list.body.builds.map((b: { build_id: string }) => b.build_id)).toEqual([upload.body.build_id, url.body.build_id]);
    expect(list.body.builds.map((b: { status: string }) => b.status)).toEqual(['ready', 'ready']);

    // The same store as v3: v3 sees the v2 uploads, v2 sees v3's builds (the image build is ready there too).
    expect((await api.get('/v3/builds?name=wire-v2')).body.total).toBe(2);
    const everything = await api.get(v2);
    expect(everything.body.total_builds).toBe((await api.get('/v3/builds?limit=1')).body.total);
    expect(everything.body.builds.map((b: { name: string }) => b.name)).toEqual(expect.arrayContaining(['wire-v2', 'wire-img', 'default']));

    expect((await api.get(`${v2}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await api.get(`${v2}/not-a-build`)).status).toBe(404);
    expect((await other.get(`${v2}/${url.body.build_id}`)).status).toBe(404);
    expect((await clientApi.delete(`${v2}/${url.body.build_id}`)).status).toBe(403);
    const deleted = await api.delete(`${v2}/${url.body.build_id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'success', message: expect.any(String) });
    expect((await api.get(`${v2}/${url.body.build_id}`)).status).toBe(404);
    expect((await api.delete(`${v2}/${url.body.build_id}`)).status).toBe(404);
    expect((await api.get(`${v2}?name=wire-v2`)).body.builds.map((b: { build_id: string }) => b.build_id)).toEqual([upload.body.build_id]);
  });
});
}

describeWireBuilds('standalone', () => startStandalone({ portRange: '29400-29449' }));
describeWireBuilds('distributed', () => startDistributed('29450-29499'));
