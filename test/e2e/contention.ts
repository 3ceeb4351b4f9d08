// Commands under contention and retries, black-box over HTTP: overlapping restarts of one server end
// with exactly one game process on the answered ports; 50 lobby members writing at once never get a 5xx;
// Idempotency-Key answers a retry with the first answer (on any gateway replica); a kill -9 of the
// lobbies service during joins loses or doubles no acknowledged join.
import { COMMAND_ID_HEADER, NatsBus } from '@spawnpoint/messaging';
import { SUBJECTS } from '@spawnpoint/proto';
import { client, eventually, Res } from '../support/http';
import { NATS_URL } from '../support/nats';
import { tcpEcho } from '../support/game-client';
import { gameProcesses } from '../support/instance-processes';
import { ADMIN_TOKEN, Platform } from '../support/processes';
import { uploadSample } from './server-lifecycle';
import { everyServer } from '../support/server-list';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const statuses = (answers: Res[]) => answers.reduce<Record<number, number>>((acc, a) => ({ ...acc, [a.status]: (acc[a.status] ?? 0) + 1 }), {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function describeContention(mode: string, start: () => Promise<Platform>): void {
  describe(`contention and retries (${mode})`, () => {
    jest.setTimeout(240_000);
    let p: Platform;
    let api: Api;
    let players: Api;

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.serverKey);
      players = client(p.baseUrl, p.clientKey);
      await uploadSample(api);
    });
    afterAll(async () => {
      await p?.stop();
    });

    const running = (id: string) => eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 30_000, `server ${id} running`);

    it.each([2, 10, 50])('%i concurrent restarts of one server end with exactly one running machine', async (n) => {
      const s = await api.post('/v3/servers/start', { name: `restart-${n}`, region: 'us-east' });
      expect(s.status).toBe(201);
      const id: string = s.body.instance_id;
      await running(id);
      const began = Date.now();
      const answers = await Promise.all(range(n).map(() => api.post(`/v3/servers/${id}/restart`, {})));
      if (process.env.CONTENTION_FIGURES) console.log(`${mode}: ${n} concurrent restarts answered ${JSON.stringify(statuses(answers))} in ${Date.now() - began} ms`);
      // Each restart is answered 200 (it ran, in turn) or 409 (refused on the state it met): never 5xx.
      expect(answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => [a.status, a.body])).toEqual([]);
      expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
      for (const a of answers) {
        if (a.status === 200) expect(a.body).toMatchObject({ instance_id: id, status: 'launching' });
        else expect(a.body).toEqual({ error: expect.any(String), status: 409 });
      }
      const final = await running(id);
      // Exactly one game process of this server, bound to the ports the server shows, answering on them.
      const procs = await eventually(async () => gameProcesses(id), (ps) => ps.length === 1, 20_000, `one game process of ${id}`);
      const tcp = final.body.network_ports.find((x: { protocol: string }) => x.protocol === 'tcp');
      expect(Object.values(procs[0].ports)).toContain(tcp.external_port);
      expect(await tcpEcho(tcp.host, tcp.external_port, 'still one')).toBe('echo: still one');
      await sleep(500);
      expect(gameProcesses(id)).toHaveLength(1);
      expect((await api.get(`/v3/servers/${id}`)).body.status).toBe('running');
      expect((await api.delete(`/v3/servers/${id}`)).status).toBe(200);
      await eventually(async () => gameProcesses(id), (ps) => ps.length === 0, 20_000, `no game process of ${id} after stop`);
    });

    it('restarts and a stop racing: the server ends as its record says, with one machine or none', async () => {
      const s = await api.post('/v3/servers/start', { name: 'race-stop', region: 'us-east' });
      const id: string = s.body.instance_id;
      await running(id);
      const answers = await Promise.all([
        ...range(5).map(() => api.post(`/v3/servers/${id}/restart`, {})),
        api.delete(`/v3/servers/${id}`),
        ...range(5).map(() => api.post(`/v3/servers/${id}/restart`, {})),
      ]);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
      // Settled: stopped with no process, or running with exactly one on its ports.
      const final = await eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status !== 'launching', 30_000, `server ${id} settled`);
      await sleep(1_000);
      const after = (await api.get(`/v3/servers/${id}`)).body;
      expect(after.status).toBe(final.body.status);
      const procs = gameProcesses(id);
      if (after.status === 'stopped') expect(procs).toEqual([]);
      else {
        expect(procs).toHaveLength(1);
        const tcp = after.network_ports.find((x: { protocol: string }) => x.protocol === 'tcp');
        expect(await tcpEcho(tcp.host, tcp.external_port, 'agreed')).toBe('echo: agreed');
        await api.delete(`/v3/servers/${id}`);
      }
    });

    it('50 members of one lobby setting ready at once: 0 × 5xx, every ready applied', async () => {
      const created = await players.post('/v3/lobbies/default', { name: 'crowd', maxPlayers: 50 }, as('crowd-0'));
      expect(created.status).toBe(201);
      const lobbyId: string = created.body.id;
      const joins = await Promise.all(range(49).map((i) => players.post('/v3/lobbies/default/join', { lobbyId }, as(`crowd-${i + 1}`))));
      expect(statuses(joins)).toEqual({ 200: 49 });
      const readies = await Promise.all(range(50).map((i) => players.patch('/v3/lobbies/default/me', { state: { ready: true, slot: i } }, as(`crowd-${i}`))));
      if (process.env.CONTENTION_FIGURES) console.log(`${mode}: 49 concurrent joins ${JSON.stringify(statuses(joins))}, 50 concurrent PATCH me ${JSON.stringify(statuses(readies))}`);
      expect(statuses(readies)).toEqual({ 200: 50 });
      const lobby = (await players.get('/v3/lobbies/default/me', as('crowd-0'))).body;
      expect(lobby.players).toHaveLength(50);
      // Joins were concurrent: the members' order is the order they were applied in, not their numbers.
      const byId = new Map<string, unknown>(lobby.players.map((p: { id: string }) => [p.id, p]));
      for (const i of range(50)) expect(byId.get(`crowd-${i}`)).toMatchObject({ state: { ready: true, slot: i } });
    });

    it('Idempotency-Key: the same key twice starts one server and answers the same; another body 422; a bad key 422', async () => {
      const key = `start-${mode}-${Date.now()}`;
      // the starts carry the key as match_id: the servers they made are the ones listed under it, whatever their status
      const made = async () => (await api.get(`/v3/servers?include_launching=true&match_id=${key}`)).body.total;
      const first = await api.post('/v3/servers/start', { name: 'once', region: 'eu-west', match_id: key }, { 'idempotency-key': key });
      expect(first.status).toBe(201);
      const again = await api.post('/v3/servers/start', { name: 'once', region: 'eu-west', match_id: key }, { 'idempotency-key': key });
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await made()).toBe(1);
      const other = await api.post('/v3/servers/start', { name: 'twice', region: 'eu-west', match_id: key }, { 'idempotency-key': key });
      expect(other.status).toBe(422);
      expect(other.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
      for (const bad of ['', 'x'.repeat(256), 'tab\there']) {
        const r = await api.post('/v3/servers/start', { name: 'bad', region: 'eu-west', match_id: key }, { 'idempotency-key': bad });
        expect([r.status, r.body.detail?.[0]?.loc]).toEqual([422, ['header', 'idempotency-key']]);
      }
      expect(await made()).toBe(1);
      // An error answer is an answer too: replayed, not run again.
      const stopKey = `stop-${mode}-${Date.now()}`;
      expect((await api.delete(`/v3/servers/${first.body.instance_id}`, { 'idempotency-key': stopKey })).status).toBe(200);
      const stopAgain = await api.delete(`/v3/servers/${first.body.instance_id}`, { 'idempotency-key': stopKey });
      expect([stopAgain.status, stopAgain.body.status]).toEqual([200, 'stopped']);
      // another key stops it again: DELETE is idempotent, the server answers as it stopped
      const otherStop = await api.delete(`/v3/servers/${first.body.instance_id}`, { 'idempotency-key': `${stopKey}-b` });
      expect([otherStop.status, otherStop.body.stopped_at]).toEqual([200, stopAgain.body.stopped_at]);
      // The OpenAPI document says so on every write.
      const doc = (await api.get('/openapi.json')).body;
      expect(doc.paths['/api/v3/servers/start'].post.parameters.map((x: { name: string }) => x.name)).toContain('Idempotency-Key');
      expect(doc.paths['/api/v3/servers/{instance_id}'].get.parameters.map((x: { name: string }) => x.name)).not.toContain('Idempotency-Key');
    });

    it('Idempotency-Key: concurrent duplicates make one server; each answer is the first one or 409', async () => {
      const key = `burst-${mode}-${Date.now()}`;
      const gateways = p.gatewayUrls ?? [p.baseUrl];
      const made = async () => (await api.get(`/v3/servers?include_launching=true&match_id=${key}`)).body.total;
      // Spread over every gateway replica: the key holds across them.
      const answers = await Promise.all(range(10).map((i) => client(gateways[i % gateways.length], p.serverKey)
        .post('/v3/servers/start', { name: 'burst', region: 'us-west', match_id: key }, { 'idempotency-key': key })));
      const created = answers.filter((a) => a.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(answers.filter((a) => a.status !== 201 && a.status !== 409)).toEqual([]);
      expect(new Set(created.map((a) => a.body.instance_id)).size).toBe(1);
      // Every replica answers a later retry with the first answer.
      for (const g of gateways) {
        const later = await client(g, p.serverKey).post('/v3/servers/start', { name: 'burst', region: 'us-west', match_id: key }, { 'idempotency-key': key });
        expect([later.status, later.body.instance_id]).toEqual([201, created[0].body.instance_id]);
      }
      expect(await made()).toBe(1);
      await api.delete(`/v3/servers/${created[0].body.instance_id}`);
    });

    it('Idempotency-Key on admin routes: a retried project creation answers the same project and keys', async () => {
      const admin = client(p.baseUrl);
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, 'idempotency-key': `admin-${mode}-${Date.now()}` };
      const first = await admin.post('/admin/projects', { name: 'idem', plan: 'free' }, auth);
      expect(first.status).toBe(201);
      const again = await admin.post('/admin/projects', { name: 'idem', plan: 'free' }, auth);
      expect([again.status, again.body]).toEqual([201, first.body]);
      expect((await admin.post('/admin/projects', { name: 'idem2', plan: 'free' }, auth)).status).toBe(422);
      expect((await client(p.baseUrl, first.body.server_key).get('/v3/servers')).status).toBe(200);
    });

    it('Idempotency-Key is per project and per player: the same key of another player is another request', async () => {
      const key = `lobby-${mode}-${Date.now()}`;
      const a = await players.post('/v3/lobbies/default', { name: 'k' }, { ...as('key-a'), 'idempotency-key': key });
      const b = await players.post('/v3/lobbies/default', { name: 'k' }, { ...as('key-b'), 'idempotency-key': key });
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.id).not.toBe(b.body.id);
      const a2 = await players.post('/v3/lobbies/default', { name: 'k' }, { ...as('key-a'), 'idempotency-key': key });
      expect([a2.status, a2.body.id]).toEqual([201, a.body.id]);
    });

    if (mode.startsWith('distributed')) {
      it('a start sent again with its command id after the servers service restarted answers the same server', async () => {
        // What the gateway does when a start's answer is lost: the same command id again (here by hand on the bus).
        const bus = await NatsBus.connect({ servers: NATS_URL, name: 'e2e-contention' });
        try {
          const headers = { [COMMAND_ID_HEADER]: `e2e-resend-${Date.now()}` };
          const payload = { projectId: p.projectId, plan: 'pro', body: { name: 'resent', region: 'south-africa' } };
          const count = async () => (await everyServer(api, 'region=south-africa')).length;
          const before = await count();
          const first = await bus.request<{ instance_id: string }>(SUBJECTS.servers.start, payload, { headers, timeoutMs: 30_000 });
          expect(await bus.request<{ instance_id: string }>(SUBJECTS.servers.start, payload, { headers, timeoutMs: 30_000 })).toMatchObject({ instance_id: first.instance_id });
          await p.restartApp!('servers', 'SIGTERM');
          const again = await bus.request<{ instance_id: string }>(SUBJECTS.servers.start, payload, { headers, timeoutMs: 30_000 });
          expect(again.instance_id).toBe(first.instance_id);
          expect(await count()).toBe(before + 1);
          // Another command id is another server.
          const other = await bus.request<{ instance_id: string }>(SUBJECTS.servers.start, payload, { headers: { [COMMAND_ID_HEADER]: `${headers[COMMAND_ID_HEADER]}-2` }, timeoutMs: 30_000 });
          expect(other.instance_id).not.toBe(first.instance_id);
          await api.delete(`/v3/servers/${other.instance_id}`);
          await api.delete(`/v3/servers/${first.instance_id}`);
        } finally {
          await bus.close();
        }
      });

      it('a lobby create and a join sent again with their command ids after a kill -9 of the lobbies service answer what they did', async () => {
        const bus = await NatsBus.connect({ servers: NATS_URL, name: 'e2e-contention' });
        try {
          const id = `e2e-lobby-${Date.now()}`;
          const create = { projectId: p.projectId, config: 'default', playerId: 'resend-host', body: { name: 'resent' } };
          const created = await bus.request<{ id: string }>(SUBJECTS.lobbies.create, create, { headers: { [COMMAND_ID_HEADER]: `${id}-c` } });
          const join = { projectId: p.projectId, config: 'default', playerId: 'resend-guest', lobbyId: created.id };
          await bus.request(SUBJECTS.lobbies.join, join, { headers: { [COMMAND_ID_HEADER]: `${id}-j` } });
          await p.restartApp!('lobbies', 'SIGKILL');
          // The restarted service has no memory of them: the store tells it what they did.
          expect(await bus.request<{ id: string }>(SUBJECTS.lobbies.create, create, { headers: { [COMMAND_ID_HEADER]: `${id}-c` } })).toMatchObject({ id: created.id });
          const again = await bus.request<{ id: string; players: { id: string }[] }>(SUBJECTS.lobbies.join, join, { headers: { [COMMAND_ID_HEADER]: `${id}-j` } });
          expect([again.id, again.players.map((x) => x.id)]).toEqual([created.id, ['resend-host', 'resend-guest']]);
          // Another command is still refused as before: the guest is in the lobby already.
          await expect(bus.request(SUBJECTS.lobbies.join, join, { headers: { [COMMAND_ID_HEADER]: `${id}-other` } })).rejects.toMatchObject({ body: { status: 409 } });
          await expect(bus.request(SUBJECTS.lobbies.create, create, { headers: { [COMMAND_ID_HEADER]: `${id}-other` } })).rejects.toMatchObject({ body: { status: 409 } });
        } finally {
          await bus.close();
        }
      });

      it('kill -9 of the lobbies service during joins: no acknowledged join lost or doubled; the next join works', async () => {
        const created = await players.post('/v3/lobbies/default', { name: 'crash', maxPlayers: 100 }, as('crash-host'));
        expect(created.status).toBe(201);
        const lobbyId: string = created.body.id;
        // 90 joins from 3 players at a time, spread over a few seconds, while the service is killed and restarted.
        const answers: { player: string; key: string; res: Res }[] = [];
        const queue = range(90).map((i) => `crash-${i}`);
        const joining = Promise.all(range(3).map(async () => {
          for (let player = queue.shift(); player; player = queue.shift()) {
            const key = `join-${player}`;
            answers.push({ player, key, res: await players.post('/v3/lobbies/default/join', { lobbyId }, { ...as(player), 'idempotency-key': key }) });
            await sleep(50);
          }
        }));
        await sleep(1_500);
        await p.restartApp!('lobbies', 'SIGKILL');
        await joining;
        const acked = answers.filter((a) => a.res.status === 200).map((a) => a.player);
        if (process.env.CONTENTION_FIGURES) console.log(`lobbies kill -9 during joins: ${answers.length} joins, answered ${JSON.stringify(statuses(answers.map((a) => a.res)))} ${JSON.stringify([...new Set(answers.filter((a) => a.res.status !== 200).map((a) => `${a.res.body.error} | ${a.res.body.detail}`))])}`);
        expect(acked.length).toBeGreaterThan(0);
        expect(answers.filter((a) => a.res.status >= 500 && a.res.status !== 503).map((a) => [a.res.status, a.res.body])).toEqual([]);
        // A join that was not acknowledged is retried with its key: it joins now or answers what it did.
        for (const a of answers.filter((x) => x.res.status !== 200)) {
          const retry = await players.post('/v3/lobbies/default/join', { lobbyId }, { ...as(a.player), 'idempotency-key': a.key });
          expect([a.player, retry.status]).toEqual([a.player, 200]);
        }
        const lobby = (await players.get('/v3/lobbies/default/me', as('crash-host'))).body;
        const ids: string[] = lobby.players.map((x: { id: string }) => x.id);
        expect(ids.length).toBe(new Set(ids).size);
        for (const player of acked) expect(ids).toContain(player);
        expect(ids.sort()).toEqual(['crash-host', ...answers.map((a) => a.player)].sort());
        const next = await players.post('/v3/lobbies/default/join', { lobbyId }, as('crash-next'));
        expect(next.status).toBe(200);
        expect(next.body.players.map((x: { id: string }) => x.id)).toContain('crash-next');
      });
    }
  });
}
