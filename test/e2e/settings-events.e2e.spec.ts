// A project change reaches every gateway at once (issue 36 item 3, ADR-0020): the projects service
// broadcasts `projects.changed` after the write, and every gateway drops what it cached of the project.
// Distributed with two gateways: a change through gateway A holds on gateway B for the first request B
// gets after A answered (issued within 100 ms of the answer), not ~5 s later (the cache TTL). Standalone
// (one gateway) must stay right too.
import { ADMIN_TOKEN, Platform, startDistributed, startStandalone } from '../support/processes';
import { client, eventually } from '../support/http';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** A server id that does not exist: a control request allowed through the guard is answered 404. */
const NO_SERVER = '00000000-0000-4000-8000-000000000000';
const TRIALS = 3;

function describeSettingsEvents(mode: string, start: () => Promise<Platform>): void {
  describe(`project changes reach every gateway at once (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let urls: string[];
    beforeAll(async () => {
      p = await start();
      urls = p.gatewayUrls ?? [p.baseUrl];
    });
    afterAll(() => p?.stop());

    it('client_key_server_control: false through gateway A is refused by gateway B on the first request after the answer', async () => {
      const writer = client(urls[0], p.serverKey);
      const other = client(urls[urls.length - 1], p.clientKey);
      for (let trial = 0; trial < TRIALS; trial++) {
        expect((await writer.post('/v3/projects/settings', { client_key_server_control: true })).status).toBe(200);
        // Gateway B caches the key as allowed to control servers (404: past the guard, no such server).
        await eventually(() => other.delete(`/v3/servers/${NO_SERVER}`), (r) => r.status === 404, 10_000, 'control allowed on B');
        expect((await other.delete(`/v3/servers/${NO_SERVER}`)).status).toBe(404);

        const patched = await writer.post('/v3/projects/settings', { client_key_server_control: false });
        const answeredAt = Date.now();
        expect(patched.status).toBe(200);
        const stop = other.delete(`/v3/servers/${NO_SERVER}`);
        const issuedAfterMs = Date.now() - answeredAt;
        const refused = await stop;
        expect(issuedAfterMs).toBeLessThan(100);
        expect(refused.status).toBe(403);
        expect(refused.body).toEqual({ error: expect.stringContaining('client_key_server_control'), status: 403 });
        // And the rest of the key's control routes on B.
        expect((await other.post(`/v3/servers/${NO_SERVER}/restart`, {})).status).toBe(403);
        expect((await other.post('/v3/servers/start', { name: 'x' })).status).toBe(403);
      }
      expect((await writer.post('/v3/projects/settings', { client_key_server_control: true })).status).toBe(200);
      // Allowed again at once as well.
      expect((await other.delete(`/v3/servers/${NO_SERVER}`)).status).toBe(404);
    });

    it('a key rotation through gateway A makes the old key 401 on gateway B on the first request after the answer', async () => {
      const made = await client(urls[0]).post('/admin/projects', { name: 'rotation', plan: 'pro' }, admin);
      expect(made.status).toBe(201);
      let serverKey: string = made.body.server_key;
      for (let trial = 0; trial < TRIALS; trial++) {
        const other = client(urls[urls.length - 1], serverKey);
        expect((await other.get('/v3/projects/settings')).status).toBe(200); // cached on B
        const rotated = await client(urls[0]).post(`/admin/projects/${made.body.project_id}/keys/rotate`, undefined, admin);
        const answeredAt = Date.now();
        expect(rotated.status).toBe(200);
        const read = other.get('/v3/projects/settings');
        const issuedAfterMs = Date.now() - answeredAt;
        expect(issuedAfterMs).toBeLessThan(100);
        expect((await read).status).toBe(401);
        serverKey = rotated.body.server_key;
        expect((await client(urls[urls.length - 1], serverKey).get('/v3/projects/settings')).status).toBe(200);
      }
    });

    it('a plan change (rate limits) through gateway A applies on gateway B on the first request after the answer', async () => {
      const made = await client(urls[0]).post('/admin/projects', { name: 'limits', plan: 'pro' }, admin);
      const other = client(urls[urls.length - 1], made.body.server_key);
      const before = await other.get('/v3/projects/settings');
      expect(before.status).toBe(200);
      const patched = await client(urls[0]).patch(`/admin/projects/${made.body.project_id}`, { rate_limits: { read_per_second: 7, write_per_second: 7, player_per_second: 7 } }, admin);
      expect(patched.status).toBe(200);
      const after = await other.get('/v3/projects/settings');
      expect(after.headers.get('x-ratelimit-limit')).toBe('7');
    });
  });
}

describeSettingsEvents('distributed, two gateways', () => startDistributed('31800-31849', {}, { gateways: 2 }));
describeSettingsEvents('standalone', () => startStandalone({ portRange: '31850-31899' }));
