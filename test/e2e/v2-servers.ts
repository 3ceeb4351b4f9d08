// The v2 servers API as the hosted service's Unity SDK and scripts use it, black-box over HTTP: a game
// server's life (start, list with and without include_launching, get, the X-Server-Status report, stop
// twice), the project id, /health at the root, and another project's server. Every answer goes through
// client(), which checks it against the hosted service's published description.
import { client, eventually } from '../support/http';
import { ADMIN_TOKEN, Platform } from '../support/processes';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
type Instance = { instance_id: string; status: string; network_ports: unknown[]; started_at: string | null; stopped_at: string | null };

const ids = (r: { body: { servers: Instance[] } }) => r.body.servers.map((s) => s.instance_id);

export function describeV2Servers(mode: string, start: () => Promise<Platform>) {
  describe(`v2 servers API (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let api: Api;
    let other: Api;

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.serverKey);
      await uploadSample(api);
      const created = await client(p.baseUrl).post('/admin/projects', { name: 'other', plan: 'pro' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(created.status).toBe(201);
      other = client(p.baseUrl, created.body.server_key);
    });
    afterAll(async () => {
      await p?.stop();
    });

    const running = (id: string) => eventually(() => api.get<Instance>(`/v2/servers/${id}`), (r) => r.body.status === 'running', 20_000, `${id} running`);

    it("plays a game server's life: start, list, get, report, stop twice", async () => {
      // As the Unity SDK sends it: version as a string, compute_size always, plus a field v2 does not know.
      const s = await api.post('/v2/servers/start', { name: 'v2 game', region: 'eu-west', compute_size: 'small', version: '1', custom_data: { map: 'a' }, extra: true });
      expect(s.status).toBe(201);
      expect(s.body).toMatchObject({ name: 'v2 game', status: 'launching', region: 'eu-west', compute_size: 'small', version_tag: 'default', version: 1 });
      expect(s.body).not.toHaveProperty('match_id');
      const id: string = s.body.instance_id;

      // A server that stays launching with its ports bound until it reports itself (readiness sdk, v3 only).
      const held = await api.post('/v3/servers/start', { name: 'held', region: 'eu-west', readiness: 'sdk', startup_args: '--ready-after-ms 60000' });
      expect(held.status).toBe(201);
      const heldId: string = held.body.instance_id;

      // Published with a trailing slash; both spellings answer.
      const withLaunching = await api.get('/v2/servers/?include_launching=true');
      expect(withLaunching.status).toBe(200);
      expect(ids(withLaunching)).toEqual(expect.arrayContaining([id, heldId]));
      expect(withLaunching.body.total_servers).toBe(withLaunching.body.servers.length);

      await running(id);
      const runningOnly = await api.get('/v2/servers');
      expect(ids(runningOnly)).toContain(id);
      expect(ids(runningOnly)).not.toContain(heldId);
      expect(runningOnly.body.servers.every((x: Instance) => x.status === 'running')).toBe(true);
      expect(ids(await api.get('/v2/servers/?include_launching=false&unknown=1'))).toEqual(ids(runningOnly));

      const got = await api.get(`/v2/servers/${id}`);
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ instance_id: id, name: 'v2 game', status: 'running', custom_data: { map: 'a' }, service_type: 'match_based', auto_restart: false, stopped_at: null });
      expect(got.body.network_ports.length).toBeGreaterThan(0);

      // X-Server-Status: launching changes nothing, running runs the held server (as the game API's ready), again nothing.
      const still = await api.put(`/v2/servers/${heldId}/update`, undefined, { 'X-Server-Status': 'launching' });
      expect(still.status).toBe(200);
      expect(still.body).toMatchObject({ instance_id: heldId, status: 'launching', started_at: null });
      const ran = await api.put(`/v2/servers/${heldId}/update`, undefined, { 'X-Server-Status': 'running' });
      expect(ran.status).toBe(200);
      expect(ran.body).toMatchObject({ instance_id: heldId, status: 'running', started_at: expect.any(String) });
      expect((await api.get(`/v2/servers/${heldId}`)).body.status).toBe('running');
      const again = await api.put(`/v2/servers/${heldId}/update`, undefined, { 'X-Server-Status': 'running' });
      expect(again.body).toMatchObject({ status: 'running', started_at: ran.body.started_at });
      expect(ids(await api.get('/v2/servers'))).toEqual(expect.arrayContaining([id, heldId]));

      // A missing or unknown status is a validation error naming the header, and changes nothing.
      const missing = await api.put(`/v2/servers/${heldId}/update`);
      expect(missing.status).toBe(422);
      expect(missing.body).toMatchObject({ status: 422, detail: [expect.objectContaining({ loc: ['header', 'X-Server-Status'] })] });
      const bogus = await api.put(`/v2/servers/${heldId}/update`, undefined, { 'X-Server-Status': 'crashed' });
      expect(bogus.status).toBe(422);
      expect(bogus.body.detail[0].loc).toEqual(['header', 'X-Server-Status']);
      expect((await api.get(`/v2/servers/${heldId}`)).body.status).toBe('running');

      // stopped stops it; again is no error; running on a stopped server is refused.
      const down = await api.put(`/v2/servers/${heldId}/update`, undefined, { 'X-Server-Status': 'stopped' });
      expect(down.status).toBe(200);
      expect(down.body).toMatchObject({ status: 'stopped', network_ports: [], stopped_at: expect.any(String) });
      expect((await api.put(`/v2/servers/${heldId}/update`, undefined, { 'X-Server-Status': 'stopped' })).body).toMatchObject({ status: 'stopped', stopped_at: down.body.stopped_at });
      const late = await api.put(`/v2/servers/${heldId}/update`, undefined, { 'X-Server-Status': 'running' });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ status: 409, error: expect.any(String) });

      // DELETE twice: 200 both times, the same answer.
      const stop = await api.delete(`/v2/servers/${id}`);
      expect(stop.status).toBe(200);
      expect(stop.body).toEqual({ status: 'stopped' });
      const stopAgain = await api.delete(`/v2/servers/${id}`);
      expect(stopAgain.status).toBe(200);
      expect(stopAgain.body).toEqual({ status: 'stopped' });
      const after = await api.get(`/v2/servers/${id}`);
      expect(after.body).toMatchObject({ status: 'stopped', network_ports: [], stopped_at: expect.any(String) });
      const listed = ids(await api.get('/v2/servers/?include_launching=true'));
      expect(listed).not.toContain(id);
      expect(listed).not.toContain(heldId);
    });

    it('retries a start with the same Idempotency-Key without a second server', async () => {
      const headers = { 'Idempotency-Key': `v2-start-${mode}` };
      const first = await api.post('/v2/servers/start', { name: 'once', region: 'us-east' }, headers);
      const second = await api.post('/v2/servers/start', { name: 'once', region: 'us-east' }, headers);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body.instance_id).toBe(first.body.instance_id);
      expect((await api.delete(`/v2/servers/${first.body.instance_id}`, { 'Idempotency-Key': `v2-stop-${mode}` })).status).toBe(200);
    });

    it("keeps another project's servers apart: 404 on get, stop and report; absent from the list", async () => {
      const s = await api.post('/v2/servers/start', { name: 'ours', region: 'us-east' });
      const id: string = s.body.instance_id;
      for (const r of [
        await other.get(`/v2/servers/${id}`),
        await other.delete(`/v2/servers/${id}`),
        await other.put(`/v2/servers/${id}/update`, undefined, { 'X-Server-Status': 'stopped' }),
        await api.get('/v2/servers/00000000-0000-4000-8000-000000000000'),
        await api.get('/v2/servers/not-a-uuid'),
        await api.delete('/v2/servers/00000000-0000-4000-8000-000000000000'),
      ]) {
        expect(r.status).toBe(404);
        expect(r.body).toMatchObject({ status: 404, error: expect.any(String) });
      }
      expect(ids(await other.get('/v2/servers/?include_launching=true'))).not.toContain(id);
      expect((await api.get(`/v2/servers/${id}`)).body.status).not.toBe('stopped');
      await api.delete(`/v2/servers/${id}`);
    });

    it('refuses a client key on the server controls when client_key_server_control is false, and any request without a key', async () => {
      const player = client(p.baseUrl, p.clientKey);
      const s = await api.post('/v2/servers/start', { name: 'controlled', region: 'us-east' });
      expect((await api.post('/v3/projects/settings', { client_key_server_control: false })).status).toBe(200);
      try {
        expect((await player.put(`/v2/servers/${s.body.instance_id}/update`, undefined, { 'X-Server-Status': 'running' })).status).toBe(403);
        expect((await player.delete(`/v2/servers/${s.body.instance_id}`)).status).toBe(403);
        expect((await player.get(`/v2/servers/${s.body.instance_id}`)).status).toBe(200);
      } finally {
        await api.post('/v3/projects/settings', { client_key_server_control: true });
      }
      const anon = client(p.baseUrl);
      expect((await anon.get('/v2/servers')).status).toBe(401);
      expect((await anon.get('/v2/project')).body).toEqual({ error: 'Invalid or missing API key', status: 401 });
      await api.delete(`/v2/servers/${s.body.instance_id}`);
    });

    it("answers the key's project id, and health at the root as under /api", async () => {
      expect((await api.get('/v2/project')).body).toEqual({ project_id: p.projectId });
      expect((await client(p.baseUrl, p.clientKey).get('/v2/project')).body).toEqual({ project_id: p.projectId });
      const root = new URL(p.baseUrl).origin;
      const health = await client(root).get('/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok', version: expect.any(String), checks: { database: { ok: true }, bus: { ok: true } } });
      expect(Object.keys(health.body.checks).sort()).toEqual(Object.keys((await client(p.baseUrl).get('/health')).body.checks).sort());
    });
  });
}
