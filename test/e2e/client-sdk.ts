// @spawnpoint/client against the running platform, run in both modes: every operation of the served OpenAPI
// document has an SDK method and each is called here; errors arrive as typed errors with the Error body;
// 429s are retried after Retry-After; the lobby event stream reconnects and resumes after a gateway restart.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  AuthError, ConflictError, LobbyEvent, NotFoundError, RateLimitError, Spawnpoint, ValidationError,
} from '@spawnpoint/client';
import { pushBuild } from '@spawnpoint/client/node';
import { eventually } from '../support/http';
import { ADMIN_TOKEN, Platform } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');
const GAME = path.join(ROOT, 'examples', 'game-server');

/** Operations an SDK user never calls directly: the docs pages, probes and the signed artifact download. */
// Game_*: the game API, for game machines (@spawnpoint/game-server), not this SDK. V2Builds_*: the hosted
// service's v2 builds routes, for its own clients; this SDK has one way to each thing, the v3 builds methods.
// RootHealth_health: /health at the root, for the hosted service's clients (the SDK checks /api/health).
// Lobbies_kick: POST me/kick, kept for clients of earlier versions; the SDK kicks with DELETE me/players/{id}.
const NOT_SDK = new Set(['Docs_openapi', 'Docs_docs', 'Health_live', 'Builds_artifact', 'RootHealth_health', 'Lobbies_kick']);

export function describeClientSdk(mode: string, start: () => Promise<Platform>, restartGateway: (p: Platform) => Promise<void>) {
  describe(`@spawnpoint/client (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let sp: Spawnpoint;
    let player: Spawnpoint;
    let admin: Spawnpoint;

    beforeAll(async () => {
      p = await start();
      sp = new Spawnpoint({ baseUrl: p.baseUrl, apiKey: p.serverKey });
      player = new Spawnpoint({ baseUrl: p.baseUrl, apiKey: p.clientKey });
      admin = new Spawnpoint({ baseUrl: p.baseUrl, adminToken: ADMIN_TOKEN });
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('has a method for every operation the gateway documents', async () => {
      const doc = (await (await fetch(`${p.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
      const served = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId)).filter((id) => !NOT_SDK.has(id) && !id.startsWith('Game_') && !id.startsWith('V2Builds_'));
      const source = readFileSync(path.join(ROOT, 'packages', 'client', 'src', 'resources.ts'), 'utf8');
      const covered = new Set([...source.matchAll(/\/\*\* ([A-Za-z0-9]+_[A-Za-z0-9]+)\b/g)].map((m) => m[1]));
      expect(served.length).toBeGreaterThan(40);
      expect(served.filter((id) => !covered.has(id))).toEqual([]);
    });

    it('reports health and readiness', async () => {
      const h = await sp.health.check();
      expect(h).toMatchObject({ status: 'ok', httpStatus: 200 });
      expect(h.checks.database.ok).toBe(true);
      expect(await sp.health.ready()).toBe(true);
    });

    it('pushes a build from a directory with progress, then lists, gets and signs it', async () => {
      const progress: [number, number][] = [];
      const build = await pushBuild(sp, GAME, { name: 'default', onProgress: (sent, total) => progress.push([sent, total]) });
      expect(build.status).toBe('ready');
      const total = progress[0][1];
      expect(total).toBeGreaterThan(100);
      expect(progress[progress.length - 1]).toEqual([total, total]);
      expect(progress.map(([s]) => s)).toEqual([...progress.map(([s]) => s)].sort((a, b) => a - b));
      const page = await sp.builds.list({ name: 'default', limit: 1 });
      expect(page).toMatchObject({ limit: 1, offset: 0, total: expect.any(Number) });
      expect(page.builds.map((b) => b.build_id)).toEqual([build.build_id]);
      const all: string[] = [];
      for await (const b of sp.builds.listAll({ name: 'default', limit: 1 })) all.push(b.build_id);
      expect(all).toHaveLength(page.total);
      expect(all[0]).toBe(build.build_id);
      expect((await sp.builds.get(build.build_id)).name).toBe('default');
      expect((await sp.builds.logs(build.build_id)).logs.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^ready: executable server/)]));
      expect((await sp.builds.artifactUrl(build.build_id)).url).toMatch(/^http/);
      const image = await sp.builds.fromImage({ name: 'sdk-image', image_url: 'registry.example.com/game:1.0' });
      expect(image).toMatchObject({ status: 'ready', build_type: 'docker_image', image_url: 'registry.example.com/game:1.0' });
      expect((await sp.builds.delete(image.build_id)).status).toBe('build_deleted');
      // A client key may not upload or delete: 403 as an AuthError with the Error body.
      const refused = await player.builds.delete(build.build_id).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(AuthError);
      expect((refused as AuthError).body).toMatchObject({ status: 403, error: expect.any(String) });
    });

    it('runs a server through its life: start, wait, list, update, logs, restart, stop', async () => {
      const started = await sp.servers.start({ name: 'sdk', region: 'us-east', custom_data: { map: 'a' } });
      expect(started.status).toBe('launching');
      const running = await sp.servers.waitFor(started.instance_id, 'running', { timeoutMs: 30_000 });
      expect(running.network_ports.length).toBeGreaterThan(0);
      expect((await sp.servers.list({ status: 'running' })).servers.map((s) => s.instance_id)).toContain(started.instance_id);
      const all: string[] = [];
      for await (const s of sp.servers.listAll({ limit: 1, include_launching: true })) all.push(s.instance_id);
      expect(all).toContain(started.instance_id);
      expect((await sp.servers.update(started.instance_id, { custom_data: { map: 'b' } })).custom_data).toEqual({ map: 'b' });
      const line = await eventually(() => sp.servers.logs(started.instance_id), (page) => page.logs.some((l) => /listening/.test(l.message)), 20_000, 'game log');
      expect(line.logs[0]).toMatchObject({ instance_id: started.instance_id, level: expect.any(String) });
      expect((await sp.servers.logHistogram(started.instance_id)).buckets.length).toBeGreaterThan(0);
      expect(await sp.servers.metrics(started.instance_id)).toBeDefined();
      expect((await sp.servers.backfill(started.instance_id)).roster_version).toEqual(expect.any(Number));
      const restarted = await sp.servers.restart(started.instance_id);
      expect(restarted.instance_id).toBe(started.instance_id);
      await sp.servers.waitFor(started.instance_id, 'running', { timeoutMs: 30_000 });
      const stopped = await sp.servers.stop(started.instance_id);
      expect(stopped.status).toBe('stopped');
      // stopping it again is no error (DELETE is idempotent); updating it is a conflict
      expect(await sp.servers.stop(started.instance_id)).toMatchObject({ status: 'stopped', stopped_at: stopped.stopped_at, network_ports: [] });
      const again = await sp.servers.update(started.instance_id, { custom_data: {} }).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(ConflictError);
      expect((again as ConflictError).status).toBe(409);
      // A stopped server's log can be followed to its end.
      const followed: string[] = [];
      for await (const l of sp.servers.followLogs(started.instance_id, { intervalMs: 100 })) followed.push(l.message);
      expect(followed.some((m) => /listening/.test(m))).toBe(true);
      const v2 = await sp.servers.startV2({ name: 'sdk-v2', region: 'us-east' });
      expect(v2.instance_id).toEqual(expect.any(String));
      await sp.servers.stop(v2.instance_id);
    });

    it('throws typed errors carrying the Error body', async () => {
      const missing = await sp.servers.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(NotFoundError);
      const invalid = await sp.servers.start({ name: '', region: 'us-east' }).catch((e: unknown) => e);
      expect(invalid).toBeInstanceOf(ValidationError);
      expect((invalid as ValidationError).issues[0].loc).toEqual(['body', 'name']);
      const badSettings = await sp.projects.updateSettings({ lobby_configs: [{ name: 'x', maxPlayers: -1 }] } as never).catch((e: unknown) => e);
      expect(badSettings).toBeInstanceOf(ValidationError);
      const unknownKey = await new Spawnpoint({ baseUrl: p.baseUrl, apiKey: 'pf_nope' }).servers.list().catch((e: unknown) => e);
      expect(unknownKey).toBeInstanceOf(AuthError);
      expect((unknownKey as AuthError).status).toBe(401);
    });

    it('retries 429 after Retry-After, and reports it when retries are used up', async () => {
      const created = await admin.admin.createProject({ name: `sdk-limits-${mode}`, plan: 'pro' });
      await admin.admin.patchProject(created.project_id, { rate_limits: { read_per_second: 2, write_per_second: 2, player_per_second: 2 } });
      const limited = new Spawnpoint({ baseUrl: p.baseUrl, apiKey: created.server_key });
      const noRetry = new Spawnpoint({ baseUrl: p.baseUrl, apiKey: created.server_key, retry: { retries: 0 } });
      const first = await Promise.all(Array.from({ length: 6 }, () => noRetry.servers.list().then(() => 'ok', (e: unknown) => e)));
      const refused = first.find((r) => r instanceof RateLimitError) as RateLimitError | undefined;
      expect(refused).toBeDefined();
      expect(refused!.retryAfter).toBeGreaterThan(0);
      const results = await Promise.all(Array.from({ length: 6 }, () => limited.servers.list()));
      expect(results.every((r) => Array.isArray(r.servers))).toBe(true);
    });

    it('manages projects as the operator: create, patch, rotate (the old key stops working), parked events', async () => {
      const created = await admin.admin.createProject({ name: `sdk-admin-${mode}` });
      expect(created.server_key).toMatch(/^pf_/);
      expect((await admin.admin.patchProject(created.project_id, { plan: 'pro' })).plan).toBe('pro');
      const rotated = await admin.admin.rotateKeys(created.project_id);
      expect(rotated.server_key).not.toBe(created.server_key);
      const old = await new Spawnpoint({ baseUrl: p.baseUrl, apiKey: created.server_key }).servers.list().catch((e: unknown) => e);
      expect(old).toBeInstanceOf(AuthError);
      expect(await new Spawnpoint({ baseUrl: p.baseUrl, apiKey: rotated.server_key }).servers.list()).toMatchObject({ servers: [] });
      expect(Array.isArray((await admin.admin.parkedEvents()).parked_events)).toBe(true);
      expect(await admin.admin.replayParked('0').catch((e: unknown) => e)).toBeInstanceOf(Error);
    });

    it('plays lobbies as players, with live events, matchmaking and the admin routes', async () => {
      await sp.projects.updateSettings({ lobby_configs: [
        { name: 'sdk', maxPlayers: 4 },
        { name: 'sdk-ranked', maxPlayers: 2, matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } },
      ] } as never);
      expect((await sp.projects.getSettings()).lobby_configs.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['sdk', 'sdk-ranked']));
      const ana = player.lobbies.asPlayer(`ana-${mode}`);
      const ben = player.lobbies.asPlayer(`ben-${mode}`);
      const lobby = await ana.create('sdk', { name: 'sdk lobby' });
      expect(lobby).toMatchObject({ host: `ana-${mode}`, currentPlayers: 1 });
      const events = ana.events('sdk');
      const seen: LobbyEvent[] = [];
      events.on('event', (e) => seen.push(e));
      expect((await events.next('connected')).data).toMatchObject({ id: lobby.id });
      const joined = events.next('lobby_updated');
      await ben.join('sdk', { lobbyId: lobby.id });
      expect((await joined).data).toMatchObject({ currentPlayers: 2 });
      expect((await ben.updateState('sdk', { ready: true })).players.find((x) => x.id === `ben-${mode}`)!.state).toEqual({ ready: true });
      expect((await ana.updateSettings('sdk', { name: 'renamed' })).name).toBe('renamed');
      expect((await player.lobbies.browse('sdk')).lobbies.map((l) => l.id)).toContain(lobby.id);
      const browsed: string[] = [];
      for await (const l of player.lobbies.browseAll('sdk', { limit: 1 })) browsed.push(l.id);
      expect(browsed).toContain(lobby.id);
      expect((await ben.mine('sdk')).id).toBe(lobby.id);
      await ben.heartbeat('sdk');
      expect((await ana.transferHost('sdk', `ben-${mode}`)).host).toBe(`ben-${mode}`);
      expect((await ben.kick('sdk', `ana-${mode}`)).currentPlayers).toBe(1);
      const kicked = await ana.mine('sdk').catch((e: unknown) => e);
      expect(kicked).toBeInstanceOf(NotFoundError);
      expect((await ben.leave('sdk')).status).toBe('left');
      await events.closed.catch(() => undefined);

      // Matchmaking: queue, explain, cancel (confirming with nothing to confirm is a 409); then the host
      // starts the lobby's own game and ends the match.
      const cara = player.lobbies.asPlayer(`cara-${mode}`);
      await cara.create('sdk-ranked');
      expect((await cara.startMatchmaking('sdk-ranked', 'duel')).status).toBe('in_queue');
      expect((await cara.explainMatchmaking('sdk-ranked')).mode).toBe('duel');
      expect((await cara.cancelMatchmaking('sdk-ranked')).status).toBe('waiting');
      expect(await cara.confirmMatch('sdk-ranked').catch((e: unknown) => e)).toBeInstanceOf(ConflictError);
      expect(await cara.declineMatch('sdk-ranked').catch((e: unknown) => e)).toBeInstanceOf(ConflictError);
      await cara.start('sdk-ranked');
      await eventually(() => cara.mine('sdk-ranked'), (l) => l.status === 'in_game', 30_000, 'lobby in game');
      expect((await cara.endMatch('sdk-ranked')).status).toBe('waiting');

      // The admin routes (server key): get, then delete, which ends the host's stream with lobby_deleted.
      const dan = player.lobbies.asPlayer(`dan-${mode}`);
      const own = await dan.create('sdk');
      const stream = dan.events('sdk');
      await stream.next('connected');
      expect((await sp.lobbies.get('sdk', own.id)).id).toBe(own.id);
      const deleted = stream.next('lobby_deleted');
      expect((await sp.lobbies.delete('sdk', own.id)).status).toBe('lobby_deleted');
      expect((await deleted).data).toMatchObject({ id: own.id });
      await stream.closed;
    });

    it('follows every lobby of a configuration on the project-wide stream (server key), never another project\'s', async () => {
      // Another project with a configuration of the same name: its lobbies must never reach this project's stream.
      const other = await admin.admin.createProject({ name: `sdk-ops-other-${mode}` });
      await new Spawnpoint({ baseUrl: p.baseUrl, apiKey: other.server_key }).projects.updateSettings({ lobby_configs: [{ name: 'sdk', maxPlayers: 4 }] } as never);
      const outsider = new Spawnpoint({ baseUrl: p.baseUrl, apiKey: other.client_key });
      const ops = sp.lobbies.events('sdk');
      const refused = player.lobbies.events('sdk');
      try {
        const seen: { event: string; data: any }[] = [];
        ops.on('event', (e) => seen.push(e));
        expect((await ops.next('connected')).data).toEqual({ config: 'sdk' });
        // A client key may not open it: 403, and the stream ends for good.
        await expect(refused.closed).rejects.toMatchObject({ status: 403 });
        const foreign = await outsider.lobbies.asPlayer(`olga-${mode}`).create('sdk');
        const gus = player.lobbies.asPlayer(`gus-${mode}`);
        const created = ops.next('lobby_updated');
        const lobby = await gus.create('sdk', { name: 'ops' });
        expect((await created).data).toMatchObject({ id: lobby.id, currentPlayers: 1 });
        const joined = ops.next('lobby_updated');
        await player.lobbies.asPlayer(`hal-${mode}`).join('sdk', { lobbyId: lobby.id });
        expect((await joined).data).toMatchObject({ id: lobby.id, currentPlayers: 2 });
        // A deleted lobby is an event, not the end of the stream: the next lobby still arrives.
        const deleted = ops.next('lobby_deleted');
        await sp.lobbies.delete('sdk', lobby.id);
        expect((await deleted).data).toEqual({ id: lobby.id, reason: 'admin' });
        const next = ops.next('lobby_updated');
        const again = await gus.create('sdk');
        expect((await next).data).toMatchObject({ id: again.id });
        await gus.leave('sdk');
        expect(seen.some((e) => (e.data as { id?: string })?.id === foreign.id)).toBe(false);
        expect(seen.filter((e) => e.event === 'connected')).toHaveLength(1);
        expect(ops.connections).toBe(1);
      } finally {
        ops.close();
        refused.close();
      }
      await ops.closed;
    });

    it('reconnects the event stream after the gateway restarts and resumes from Last-Event-ID', async () => {
      const eve = player.lobbies.asPlayer(`eve-${mode}`);
      const fay = player.lobbies.asPlayer(`fay-${mode}`);
      const lobby = await eve.create('sdk');
      const stream = eve.events('sdk', { reconnectDelayMs: 200 });
      const updates: LobbyEvent[] = [];
      stream.on('lobby_updated', (_d, e) => updates.push(e));
      await stream.next('connected');
      await fay.join('sdk', { lobbyId: lobby.id });
      await eventually(async () => updates.length, (n) => n >= 1, 10_000, 'first update');
      const lastBefore = stream.lastEventId;
      await restartGateway(p);
      await eventually(async () => stream.connections, (n) => n >= 2, 60_000, 'stream reconnected');
      await fay.updateState('sdk', { ready: true });
      await eventually(async () => updates.length, (n) => n >= 2, 20_000, 'update after the restart');
      // Resumed, not restarted: the reconnect asked for what came after the last id seen, so no update twice.
      expect(new Set(updates.map((u) => u.id)).size).toBe(updates.length);
      expect(updates[updates.length - 1].id).not.toBe(lastBefore);
      expect((updates[updates.length - 1].data as { players: { id: string; state: unknown }[] }).players.find((x) => x.id === `fay-${mode}`)!.state).toEqual({ ready: true });
      stream.close();
      await stream.closed;
    });
  });
}
