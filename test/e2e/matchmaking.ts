// Matchmaking end to end, run in both modes: the routes' refusals, two lobbies matched into one game on
// one real server (custom_data.match, match_id), end-match by one lobby of the match then the other (the
// server stops with the last), cancel, queue timeout, and the event stream's match_found.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { client, eventually } from '../support/http';
import { ADMIN_TOKEN, Platform } from '../support/processes';
import { lobbyEvents } from '../support/sse';
import { uploadSample } from './server-lifecycle';
import { everyServer } from '../support/server-list';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });

export function describeMatchmaking(mode: string, start: () => Promise<Platform>): void {
  describe(`matchmaking (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let server: Api;
    let api: Api;
    const began = new Date().toISOString();

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      api = client(p.baseUrl, p.clientKey);
      const settings = await server.post('/v3/projects/settings', { lobby_configs: [
        { name: 'ranked', maxPlayers: 4, matchmaking: { modes: {
          duel: { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100 }] },
          brief: { teams: 2, playersPerTeam: 1, timeout: 2 },
          confirmed: { teams: 2, playersPerTeam: 1, requireConfirmation: true, confirmationTimeout: 3 },
          refill: { teams: 2, playersPerTeam: 1, allowBackfill: true, backfillWindow: 60 },
          squads: { teams: 2, roles: { tank: { count: 1 }, healer: { count: 1 } } },
          rolefill: { teams: 2, roles: { tank: { count: 1 }, healer: { count: 1 } }, allowBackfill: true, backfillWindow: 60 },
          shortfill: { teams: 2, playersPerTeam: 1, allowBackfill: true, backfillWindow: 1 },
          open: { teams: 2, playersPerTeam: 1 },
          pairs: { teams: 2, playersPerTeam: 2 },
          widening: { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100, expandBy: 100, expandEvery: 2 }] },
        } } },
        // no build has this tag: every server start is refused
        { name: 'broken', serverSettings: { version_tag: 'no-such-tag' }, matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } },
      ] });
      expect(settings.status).toBe(200);
      await uploadSample(server);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('refuses what it cannot do: unknown mode 400 naming it, no mode 422, non-host 403, cancel or decline when not searching 409', async () => {
      await api.post('/v3/lobbies/ranked', { region: 'eu-west' }, as('mm-rita'));
      await api.post('/v3/lobbies/ranked/join', { lobbyId: (await api.get('/v3/lobbies/ranked/me', as('mm-rita'))).body.id }, as('mm-rolf'));
      const unknown = await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'nope' }, as('mm-rita'));
      expect(unknown.status).toBe(400);
      expect(unknown.body).toEqual({ error: expect.stringContaining("'nope'"), status: 400 });
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', {}, as('mm-rita'))).status).toBe(422);
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-rolf'))).status).toBe(403);
      // a party of two in a mode of one player per team
      const party = await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-rita'));
      expect(party.status).toBe(422);
      expect(party.body.detail[0]).toMatchObject({ loc: ['body', 'mode'], type: 'party_too_large' });
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-rita'))).status).toBe(409);
      expect((await api.post('/v3/lobbies/ranked/me/confirm-match', undefined, as('mm-rita'))).status).toBe(409);
      expect((await api.delete('/v3/lobbies/ranked/me/confirm-match', as('mm-rolf'))).status).toBe(409);
      expect((await api.get('/v3/lobbies/ranked/me', as('mm-rita'))).body).toMatchObject({ status: 'waiting', matchmaking: null });
    });

    it('one active search per player per project: a member searching in another config is 409 until that search ends', async () => {
      expect((await api.post('/v3/lobbies/ranked', { region: 'eu-uk', state: { mmr: 9000 } }, as('mm-s1'))).status).toBe(201);
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-s1'))).status).toBe(200);
      expect((await api.post('/v3/lobbies/broken', { region: 'eu-uk' }, as('mm-s1'))).status).toBe(201);
      const twice = await api.post('/v3/lobbies/broken/me/matchmaking', { mode: 'duel' }, as('mm-s1'));
      expect(twice.status).toBe(409);
      expect(twice.body.error).toMatch(/already searching/);
      expect((await api.get('/v3/lobbies/broken/me', as('mm-s1'))).body).toMatchObject({ status: 'waiting', matchmaking: null });
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-s1'))).status).toBe(200);
      expect((await api.post('/v3/lobbies/broken/me/matchmaking', { mode: 'duel' }, as('mm-s1'))).status).toBe(200);
      expect((await api.delete('/v3/lobbies/broken/me/matchmaking', as('mm-s1'))).status).toBe(200);
    });

    it("tenants are isolated: another project's lobbies never match this one's; its server key sees no backfill of this project's server", async () => {
      const made = await fetch(`${p.baseUrl}/admin/projects`, {
        method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'other', plan: 'pro' }),
      });
      expect(made.status).toBe(201);
      const other = (await made.json()) as { server_key: string; client_key: string };
      const otherServer = client(p.baseUrl, other.server_key);
      const otherApi = client(p.baseUrl, other.client_key);
      expect((await otherServer.post('/v3/projects/settings', { lobby_configs: [{ name: 'ranked', matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } }] })).status).toBe(200);
      // one lobby in each project, same config, mode and region, same rating: never one match
      await api.post('/v3/lobbies/ranked', { region: 'us-south', state: { mmr: 1000 } }, as('mm-t1'));
      await otherApi.post('/v3/lobbies/ranked', { region: 'us-south', state: { mmr: 1000 } }, as('mm-t2'));
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-t1'))).status).toBe(200);
      expect((await otherApi.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-t2'))).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1500));
      expect((await api.get('/v3/lobbies/ranked/me', as('mm-t1'))).body.status).toBe('in_queue');
      expect((await otherApi.get('/v3/lobbies/ranked/me', as('mm-t2'))).body.status).toBe('in_queue');
      // and each project's explain counts only its own queue
      expect((await api.get('/v3/lobbies/ranked/me/matchmaking', as('mm-t1'))).body).toMatchObject({ candidates: 0 });
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-t1'))).status).toBe(200);
      expect((await otherApi.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-t2'))).status).toBe(200);
      // a server of this project: the other project's server key gets 404 for its backfill
      const started = await server.post('/v3/servers/start', { name: 'tenant-check', region: 'us-south' });
      expect(started.status).toBe(201);
      expect((await otherServer.get(`/v3/servers/${started.body.instance_id}/backfill`)).status).toBe(404);
      expect((await otherServer.patch(`/v3/servers/${started.body.instance_id}/backfill`, { accepting: true })).status).toBe(404);
      expect((await server.get(`/v3/servers/${started.body.instance_id}/backfill`)).body).toMatchObject({ match_id: started.body.match_id, status: 'in_game', roster: [] });
      await server.delete(`/v3/servers/${started.body.instance_id}`);
    });

    it('matches two lobbies within the window into one game on one server; end-match by each; the server stops with the last', async () => {
      const ann = await api.post('/v3/lobbies/ranked', { region: 'eu-west', state: { mmr: 1200 } }, as('mm-ann'));
      const bob = await api.post('/v3/lobbies/ranked', { region: 'eu-west', state: { mmr: 1260 } }, as('mm-bob'));
      // far outside the window: never matched with them
      await api.post('/v3/lobbies/ranked', { region: 'eu-west', state: { mmr: 2500 } }, as('mm-far'));
      const watch = lobbyEvents(p.baseUrl, p.clientKey, 'ranked', 'mm-bob');
      try {
        await watch.next('connected');
        const queued = await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-ann'));
        expect(queued.status).toBe(200);
        expect(queued.body).toMatchObject({ status: 'in_queue', matchmaking: { mode: 'duel', startedAt: expect.any(String), confirmation: null } });
        expect(queued.body.matchmaking.queueStats).toEqual({ playersSearching: expect.any(Number), lobbiesInQueue: expect.any(Number), avgWaitSeconds: expect.any(Number) });
        expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-ann'))).status).toBe(409);
        expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-far'))).status).toBe(200);
        expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'duel' }, as('mm-bob'))).status).toBe(200);

        const annGame = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-ann')), (r) => r.body.status === 'in_game', 60_000, 'ann in_game');
        const bobGame = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-bob')), (r) => r.body.status === 'in_game', 30_000, 'bob in_game');
        const serverId: string = annGame.body.server.instance_id;
        expect(bobGame.body.server.instance_id).toBe(serverId);
        expect(annGame.body.server).toMatchObject({ status: 'running', region: 'eu-west' });
        const srv = await server.get(`/v3/servers/${serverId}`);
        expect(srv.body.custom_data.match).toEqual({ mode: 'duel', teams: expect.any(Array), lobbies: expect.arrayContaining([ann.body.id, bob.body.id]) });
        expect(srv.body.custom_data.match.teams.flat().sort()).toEqual(['mm-ann', 'mm-bob']);
        expect(srv.body.match_id).toEqual(expect.any(String));
        // the far lobby is still searching, alone: explain says why, with the figures
        expect((await api.get('/v3/lobbies/ranked/me', as('mm-far'))).body.status).toBe('in_queue');
        const why = await api.get('/v3/lobbies/ranked/me/matchmaking', as('mm-far'));
        expect(why.status).toBe(200);
        expect(why.body).toMatchObject({ mode: 'duel', status: 'in_queue', rating: 2500, currentRule: { field: 'mmr', maxDifference: 100, nextExpansionAt: null }, candidates: 0 });
        expect(why.body.blockedBy).toContainEqual({ code: 'not_enough_players', playersAvailable: 1, playersNeeded: 2 });
        // the live queue figures reach the lobby view (broadcast every second here)
        const counted = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-far')), (r) => r.body.matchmaking?.queueStats?.lobbiesInQueue === 1, 15_000, 'queue figures');
        expect(counted.body.matchmaking.queueStats).toMatchObject({ playersSearching: 1, lobbiesInQueue: 1, avgWaitSeconds: expect.any(Number) });
        // bob's stream saw match_found, then the game
        const found = await watch.next('match_found');
        expect(found.data.id).toBe(bob.body.id);
        const inGame = await watch.next('lobby_updated', (e) => e.data.status === 'in_game');
        // a reconnect with the Last-Event-ID of an event before the match replays what it missed: match_found
        // (at the revision that found the match: live, a coalesced update may carry it at the next one), then the game
        const prior = watch.events.slice(0, watch.events.indexOf(found)).reverse().find((e) => e.type === 'lobby_updated' && e.id !== found.id);
        expect(prior).toBeDefined();
        const replay = lobbyEvents(p.baseUrl, p.clientKey, 'ranked', 'mm-bob', { lastEventId: prior!.id });
        try {
          expect((await replay.next('match_found')).data).toMatchObject({ id: bob.body.id, status: expect.stringMatching(/^(match_found|matched)$/) });
          expect((await replay.next('lobby_updated', (e) => e.data.status === 'in_game')).id).toBe(inGame.id);
        } finally {
          replay.close();
        }

        // the game server's match, as its backfill stands (server key only)
        expect((await api.get(`/v3/servers/${serverId}/backfill`)).status).toBe(403);
        expect((await server.get('/v3/servers/00000000-0000-4000-8000-000000000000/backfill')).status).toBe(404);
        const bf = await server.get(`/v3/servers/${serverId}/backfill`);
        expect(bf.body).toEqual({
          match_id: srv.body.match_id, instance_id: serverId, status: 'in_game', backfill_open: false, backfill_deadline: null, skill_band: null, roster_version: 0,
          roster: srv.body.custom_data.match.teams,
        });
        expect((await server.patch(`/v3/servers/${serverId}/backfill`, { accepting: true, skillBand: { field: 'mmr', min: 1300, max: 1100 } })).status).toBe(422);
        const band = { field: 'mmr', min: 1100, max: 1400 };
        const opened = await server.patch(`/v3/servers/${serverId}/backfill`, { accepting: true, skillBand: band });
        expect(opened.status).toBe(200);
        expect(opened.body).toMatchObject({ status: 'in_game', backfill_open: true, skill_band: band, roster_version: 1, backfill_deadline: expect.any(String) });
        // concurrent overrides: each its own roster_version, none lost or repeated
        const many = await Promise.all(Array.from({ length: 100 }, (_, i) => server.patch(`/v3/servers/${serverId}/backfill`, { accepting: i % 2 === 0 })));
        expect(many.map((r) => r.status)).toEqual(many.map(() => 200));
        expect(many.map((r) => r.body.roster_version).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
        const locked = await server.patch(`/v3/servers/${serverId}/backfill`, { accepting: false });
        expect(locked.body).toMatchObject({ status: 'locked', backfill_open: false, skill_band: band, roster_version: 102 });

        // one lobby of the match ends it: only that lobby leaves; the server keeps running for the other
        const annEnded = await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-ann'));
        expect(annEnded.body).toMatchObject({ status: 'waiting', server: null, matchmaking: null });
        await new Promise((r) => setTimeout(r, 1000));
        expect((await server.get(`/v3/servers/${serverId}`)).body.status).toBe('running');
        expect((await api.get('/v3/lobbies/ranked/me', as('mm-bob'))).body.status).toBe('in_game');
        expect((await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-bob'))).body.status).toBe('waiting');
        await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'match server stopped');
        // the two lobbies leaving were roster changes too (102 overrides + 2)
        const done = await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.roster_version === 104, 15_000, 'roster changes counted');
        expect(done.body).toMatchObject({ status: 'completed', backfill_open: false, backfill_deadline: null });
        expect((await server.patch(`/v3/servers/${serverId}/backfill`, { accepting: true })).status).toBe(409);
        // the far lobby leaves the queue
        const cancelled = await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-far'));
        expect(cancelled.status).toBe(200);
        expect(cancelled.body).toMatchObject({ status: 'waiting', matchmaking: null });
        expect(cancelled.body.matchmakingError).toBeUndefined();
        expect((await api.get('/v3/lobbies/ranked/me/matchmaking', as('mm-far'))).status).toBe(409);
        expect((await api.get('/v3/lobbies/ranked/me/matchmaking', as('mm-nobody'))).status).toBe(404);
      } finally {
        watch.close();
      }
    });

    it('three refused server starts: every lobby of the match back to waiting with matchmakingError', async () => {
      await api.post('/v3/lobbies/broken', { region: 'eu-west' }, as('mm-x'));
      await api.post('/v3/lobbies/broken', { region: 'eu-west' }, as('mm-y'));
      expect((await api.post('/v3/lobbies/broken/me/matchmaking', { mode: 'duel' }, as('mm-x'))).status).toBe(200);
      expect((await api.post('/v3/lobbies/broken/me/matchmaking', { mode: 'duel' }, as('mm-y'))).status).toBe(200);
      for (const who of ['mm-x', 'mm-y']) {
        const back = await eventually(() => api.get('/v3/lobbies/broken/me', as(who)), (r) => r.body.status === 'waiting' && r.body.matchmakingError, 30_000, `${who} back`);
        expect(back.body).toMatchObject({ matchmaking: null, server: null, matchmakingError: expect.stringMatching(/no-such-tag|build/) });
      }
    });

    it('confirmation: all confirm → a game; one missing → dissolved at the deadline (the confirmed back in the queue at its first queue time)', async () => {
      for (const who of ['mm-c1', 'mm-c2', 'mm-c3', 'mm-c4']) expect((await api.post('/v3/lobbies/ranked', { region: 'south-africa' }, as(who))).status).toBe(201);
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'confirmed' }, as('mm-c1'))).status).toBe(200);
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'confirmed' }, as('mm-c2'))).status).toBe(200);
      const found = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-c1')), (r) => r.body.status === 'match_found', 20_000, 'c1 match_found');
      expect(found.body.matchmaking.confirmation).toEqual({ deadline: expect.any(String), confirmed: false });
      const why = await api.get('/v3/lobbies/ranked/me/matchmaking', as('mm-c1'));
      expect(why.body.blockedBy).toEqual([{ code: 'awaiting_confirmation', deadline: found.body.matchmaking.confirmation.deadline }]);
      const c1 = await api.post('/v3/lobbies/ranked/me/confirm-match', undefined, as('mm-c1'));
      expect(c1.status).toBe(200);
      expect(c1.body.matchmaking.confirmation.confirmed).toBe(true);
      // again: a no-op
      expect((await api.post('/v3/lobbies/ranked/me/confirm-match', undefined, as('mm-c1'))).status).toBe(200);
      await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-c2')), (r) => r.body.status === 'match_found', 20_000, 'c2 match_found');
      expect((await api.post('/v3/lobbies/ranked/me/confirm-match', undefined, as('mm-c2'))).status).toBe(200);
      const c1Game = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-c1')), (r) => r.body.status === 'in_game', 60_000, 'c1 in_game');
      expect((await api.get('/v3/lobbies/ranked/me', as('mm-c2'))).body.server?.instance_id).toBe(c1Game.body.server.instance_id);

      // c3 confirms, c4 never does: at the deadline c3 is queued again (first queue time kept), c4 waits with the reason
      const c3Queued = await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'confirmed' }, as('mm-c3'));
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'confirmed' }, as('mm-c4'))).status).toBe(200);
      await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-c3')), (r) => r.body.status === 'match_found', 20_000, 'c3 match_found');
      expect((await api.post('/v3/lobbies/ranked/me/confirm-match', undefined, as('mm-c3'))).status).toBe(200);
      const c4 = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-c4')), (r) => r.body.status === 'waiting', 20_000, 'c4 dissolved');
      expect(c4.body).toMatchObject({ matchmaking: null, matchmakingError: 'confirmation_timeout' });
      expect((await api.post('/v3/lobbies/ranked/me/confirm-match', undefined, as('mm-c4'))).status).toBe(409);
      const c3 = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-c3')), (r) => r.body.status === 'in_queue', 20_000, 'c3 requeued');
      expect(c3.body.matchmaking.startedAt).toBe(c3Queued.body.matchmaking.startedAt);
      for (const who of ['mm-c1', 'mm-c2']) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(who));
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-c3'))).status).toBe(200);
    });

    it('engine-managed backfill: a lobby leaving a game frees its slot; a queued lobby fills it straight into the game; the game sees its roster', async () => {
      for (const who of ['mm-b1', 'mm-b2', 'mm-b3']) expect((await api.post('/v3/lobbies/ranked', { region: 'us-west' }, as(who))).status).toBe(201);
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as('mm-b1'));
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as('mm-b2'));
      const b1 = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-b1')), (r) => r.body.status === 'in_game', 60_000, 'b1 in_game');
      const serverId: string = b1.body.server.instance_id;
      // the window runs from the server's start (the servers read model may show it a moment after the lobby)
      const before = await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.backfill_deadline !== null, 10_000, 'window');
      expect(before.body).toMatchObject({ status: 'in_game', backfill_open: false, roster_version: 0 });
      // b2 leaves the game: its slot frees; the record opens (roster_version 1)
      expect((await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-b2'))).body.status).toBe('waiting');
      const opened = await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.roster_version === 1, 15_000, 'roster changed');
      expect(opened.body.backfill_open).toBe(true);
      // b3 queues: it fills the slot, straight into the running game on the same server
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as('mm-b3'));
      const b3 = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-b3')), (r) => r.body.status === 'in_game', 30_000, 'b3 filled in');
      expect(b3.body.server.instance_id).toBe(serverId);
      const full = await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.roster_version === 2, 15_000, 'filled');
      // b3 took b2's place: its team
      const b2Team = before.body.roster.findIndex((t: string[]) => t.includes('mm-b2'));
      expect(full.body.backfill_open).toBe(false);
      expect(full.body.roster[b2Team]).toEqual(['mm-b3']);
      expect(full.body.roster[1 - b2Team]).toEqual(['mm-b1']);
      const srv = await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.custom_data?.match?.lobbies?.includes(b3.body.id), 15_000, 'the game sees its roster');
      expect(srv.body.custom_data.match.teams).toEqual(full.body.roster);
      for (const who of ['mm-b1', 'mm-b3']) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(who));
      await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'server stopped');
    });

    it('engine-managed backfill: a slot freed after the window is not filled', async () => {
      for (const who of ['mm-w1', 'mm-w2', 'mm-w3']) expect((await api.post('/v3/lobbies/ranked', { region: 'ap-north' }, as(who))).status).toBe(201);
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'shortfill' }, as('mm-w1'));
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'shortfill' }, as('mm-w2'));
      const w1 = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-w1')), (r) => r.body.status === 'in_game', 60_000, 'w1 in_game');
      await new Promise((r) => setTimeout(r, 1500)); // past the 1 s window
      await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-w2'));
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'shortfill' }, as('mm-w3'));
      await new Promise((r) => setTimeout(r, 2000));
      expect((await api.get('/v3/lobbies/ranked/me', as('mm-w3'))).body.status).toBe('in_queue');
      expect((await server.get(`/v3/servers/${w1.body.server.instance_id}/backfill`)).body).toMatchObject({ backfill_open: false, roster_version: 1 });
      await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-w3'));
      await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-w1'));
    });

    it('engine-managed backfill: a lock racing a fill gives one outcome (filled before the lock, or not at all); nothing fills while locked', async () => {
      for (const who of ['mm-k1', 'mm-k2']) expect((await api.post('/v3/lobbies/ranked', { region: 'south-america-chile' }, as(who))).status).toBe(201);
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as('mm-k1'));
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as('mm-k2'));
      const k1 = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-k1')), (r) => r.body.status === 'in_game', 60_000, 'k1 in_game');
      const serverId: string = k1.body.server.instance_id;
      await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-k2')); // a slot frees
      const outcomes = { filled: 0, notFilled: 0 };
      for (let i = 0; i < 6; i++) {
        const x = `mm-kx${i}`;
        expect((await api.post('/v3/lobbies/ranked', { region: 'south-america-chile' }, as(x))).status).toBe(201);
        expect((await server.patch(`/v3/servers/${serverId}/backfill`, { accepting: true })).status).toBe(200);
        // x queues while the game locks its roster, a few ms apart either way
        const [queued, lock] = await Promise.all([
          api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as(x)),
          new Promise((r) => setTimeout(r, i * 7)).then(() => server.patch(`/v3/servers/${serverId}/backfill`, { accepting: false })),
        ]);
        expect(queued.status).toBe(200);
        expect(lock.status).toBe(200);
        expect(lock.body).toMatchObject({ status: 'locked', backfill_open: false });
        await new Promise((r) => setTimeout(r, 1500));
        // x settles in exactly one place: in the game, or still queued (never held reserved, never filled while locked)
        const xs = await eventually(() => api.get('/v3/lobbies/ranked/me', as(x)), (r) => r.body.status === 'in_game' || r.body.status === 'in_queue', 15_000, `${x} settled`);
        if (xs.body.status === 'in_game') {
          outcomes.filled++;
          expect(xs.body.server.instance_id).toBe(serverId);
          await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.roster.flat().includes(x), 15_000, `${x} in the roster`);
          await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(x)); // its slot frees again
        } else {
          outcomes.notFilled++;
          expect((await server.get(`/v3/servers/${serverId}/backfill`)).body.roster.flat()).not.toContain(x);
          expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as(x))).status).toBe(200);
        }
      }
      expect(outcomes.filled + outcomes.notFilled).toBe(6);
      if (p.databaseUrl) {
        // on the match's own stream: no lobby joined while the game was locked
        const db = new Client({ connectionString: p.databaseUrl });
        await db.connect();
        try {
          const matchId = (await server.get(`/v3/servers/${serverId}`)).body.match_id;
          const { rows } = await db.query<{ type: string; data: any }>('SELECT type, data FROM events WHERE stream_id = $1 ORDER BY revision', [`match-${matchId}`]);
          let locked = false;
          for (const e of rows) {
            if (e.type === 'MatchBackfillAccepting') locked = !e.data.accepting;
            if (e.type === 'MatchFilled') expect({ filledWhileLocked: locked, lobby: e.data.lobbyId }).toEqual({ filledWhileLocked: false, lobby: e.data.lobbyId });
          }
          expect(rows.filter((e) => e.type === 'MatchBackfillAccepting' && !e.data.accepting)).toHaveLength(6);
        } finally {
          await db.end();
        }
      }
      await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-k1'));
    });

    it('engine-managed backfill is served before new matches: of two lobbies queued together while a slot is open, one fills the game and the other waits', async () => {
      for (const who of ['mm-f1', 'mm-f2', 'mm-f3', 'mm-f4']) expect((await api.post('/v3/lobbies/ranked', { region: 'south-america-brazil' }, as(who))).status).toBe(201);
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as('mm-f1'));
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as('mm-f2'));
      const f1 = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-f1')), (r) => r.body.status === 'in_game', 60_000, 'f1 in_game');
      const serverId: string = f1.body.server.instance_id;
      await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.backfill_deadline !== null, 10_000, 'window');
      await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-f2'));
      await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.backfill_open === true, 15_000, 'slot open');
      // f3 and f4 could make a new 1v1 between them; the open slot comes first
      const queued = await Promise.all(['mm-f3', 'mm-f4'].map((who) => api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'refill' }, as(who))));
      expect(queued.map((r) => r.status)).toEqual([200, 200]);
      const newcomers = () => Promise.all(['mm-f3', 'mm-f4'].map((who) => api.get('/v3/lobbies/ranked/me', as(who))));
      await eventually(newcomers, (rs) => rs.some((r) => r.body.status === 'in_game'), 30_000, 'one newcomer in the game');
      await new Promise((r) => setTimeout(r, 2000));
      const [f3, f4] = await newcomers();
      const filled = f3.body.status === 'in_game' ? f3 : f4;
      const other = filled === f3 ? f4 : f3;
      expect(filled.body.server.instance_id).toBe(serverId);
      expect(other.body.status).toBe('in_queue');
      // no second game was made for them
      const all = await everyServer(server);
      const theirs = all.filter((s: { custom_data?: { match?: { lobbies?: string[] } } }) => s.custom_data?.match?.lobbies?.some((l) => l === f3.body.id || l === f4.body.id));
      expect(theirs.map((s: { instance_id: string }) => s.instance_id)).toEqual([serverId]);
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as(other.body.host))).status).toBe(200);
      for (const who of ['mm-f1', filled.body.host]) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(who));
      await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'server stopped');
    });

    it('a leave, a kick or a state change racing formation gives one outcome per lobby: in the game or out of it, none stuck, no server left running', async () => {
      // 2v2 of two lobbies of two; after the second lobby queues, a member of it leaves, is kicked or changes
      // its state: at once, 25 ms later, as soon as the lobby shows the match found, or 40 ms after that (so
      // the change lands in different phases: queued, reserved, found or matched, starting).
      const kinds = ['leave', 'kick', 'state'] as const;
      const phases = ['queued', 'queued+25ms', 'found', 'found+40ms'] as const;
      const regions = ['us-east', 'us-south', 'us-west', 'eu-north', 'eu-west', 'eu-uk', 'ap-south', 'sea', 'ap-north', 'ap-southeast', 'south-africa', 'south-america-brazil'];
      const trials = kinds.flatMap((kind, k) => phases.map((phase, i) => ({ kind, phase, region: regions[k * phases.length + i] })));
      const settledStatus = new Set(['in_game', 'in_queue', 'waiting']);
      const results = await Promise.all(trials.map(async ({ kind, phase, region }) => {
        const [h1, g1, h2, g2] = ['h1', 'g1', 'h2', 'g2'].map((r) => `rc-${kind}-${phase.replace('+', '-')}-${r}`);
        const ids: string[] = [];
        for (const [host, guest] of [[h1, g1], [h2, g2]]) {
          const created = await api.post('/v3/lobbies/ranked', { region }, as(host));
          expect(created.status).toBe(201);
          expect((await api.post('/v3/lobbies/ranked/join', { lobbyId: created.body.id }, as(guest))).status).toBe(200);
          ids.push(created.body.id);
        }
        expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'pairs' }, as(h1))).status).toBe(200);
        const second = api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'pairs' }, as(h2));
        let seenBefore = 'in_queue';
        if (phase === 'queued+25ms') await new Promise((r) => setTimeout(r, 25));
        if (phase.startsWith('found')) {
          await second;
          const found = await eventually(() => api.get('/v3/lobbies/ranked/me', as(h2)), (r) => r.body.status !== 'in_queue', 30_000, `${kind} ${phase}: found`);
          seenBefore = found.body.status;
          if (phase === 'found+40ms') await new Promise((r) => setTimeout(r, 40));
        }
        const change = kind === 'leave' ? api.delete('/v3/lobbies/ranked/me', as(g2))
          : kind === 'kick' ? api.post('/v3/lobbies/ranked/me/kick', { playerId: g2 }, as(h2))
          : api.patch('/v3/lobbies/ranked/me', { state: { note: 'changed' } }, as(g2));
        expect((await second).status).toBe(200);
        expect((await change).status).toBe(200);
        // settled: both out of match_found / matched / starting, and still so a moment later
        const both = () => Promise.all([h1, h2].map((who) => api.get('/v3/lobbies/ranked/me', as(who))));
        const isSettled = (rs: Awaited<ReturnType<typeof both>>) => rs.every((r) => settledStatus.has(r.body.status)) && (kind !== 'state' || rs.every((r) => r.body.status === 'in_game'));
        let rs = await eventually(both, isSettled, 60_000, `${kind} ${phase} settled`);
        await new Promise((r) => setTimeout(r, 1000));
        rs = await eventually(both, isSettled, 30_000, `${kind} ${phase} still settled`);
        const statuses = rs.map((r) => r.body.status);
        if (kind !== 'state') expect((await api.get('/v3/lobbies/ranked/me', as(g2))).status).toBe(404);
        if (statuses[0] === 'in_game' && statuses[1] !== 'in_game') {
          // the change declined a match whose server was already assigned (the lobby had not heard it yet):
          // that lobby left the match (waiting, no server); the other plays, and the game's roster drops the leaver's lobby
          expect(kind).not.toBe('state');
          expect(rs[1].body).toMatchObject({ status: 'waiting', server: null, matchmaking: null });
          const serverId = rs[0].body.server.instance_id;
          const srv = await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.custom_data?.match?.lobbies?.length === 1, 15_000, 'roster without the leaver');
          expect(srv.body.custom_data.match.lobbies).toEqual([ids[0]]);
          expect(srv.body.custom_data.match.teams.flat().sort()).toEqual([g1, h1].sort());
          await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(h1));
          await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'server stopped');
        } else if (statuses.includes('in_game')) {
          // one game: both on one server that names exactly these two lobbies
          expect(statuses).toEqual(['in_game', 'in_game']);
          const serverId = rs[0].body.server.instance_id;
          expect(rs[1].body.server.instance_id).toBe(serverId);
          const srv = await server.get(`/v3/servers/${serverId}`);
          expect([...srv.body.custom_data.match.lobbies].sort()).toEqual([...ids].sort());
          for (const who of [h1, h2]) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(who));
          await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'server stopped');
        } else {
          // neither in a game: a server started for their match (a start racing the decline) is stopped
          const all = await everyServer(server);
          for (const s of all.filter((x: { custom_data?: { match?: { lobbies?: string[] } } }) => x.custom_data?.match?.lobbies?.some((l) => ids.includes(l)))) {
            await eventually(() => server.get(`/v3/servers/${s.instance_id}`), (r) => r.body.status === 'stopped', 30_000, `orphan ${s.instance_id} stopped`);
          }
          for (const [who, r] of [[h1, rs[0]], [h2, rs[1]]] as const) if (r.body.status === 'in_queue') await api.delete('/v3/lobbies/ranked/me/matchmaking', as(who));
        }
        return `${kind}@${phase}(${seenBefore}):${statuses.join('/')}`;
      }));
      // what each trial came to (the phase a change lands in varies with timing; every outcome above is checked)
      console.log(`formation races (${mode}): ${results.join(' ')}`);
    });

    it('a match takes a warm pool server when its region has one; an empty pool means a cold start, not a failure', async () => {
      // sea keeps one ready; ap-southeast is in the pool with none kept (always empty)
      const pool = { enabled: true, regions: { sea: { min_ready: 1, max: 1 }, 'ap-southeast': { min_ready: 0, max: 1 } }, build_name: 'default' };
      expect((await server.post('/v3/projects/settings', { pool_config: pool })).status).toBe(200);
      await eventually(() => server.get('/v3/servers?region=sea&include_pool=true&limit=100'), (r) => r.body.servers.some((x: any) => x.is_pool_server && !x.pool_claimed_at && x.status === 'running'), 60_000, 'sea pool ready');
      const pairs: [string, string[]][] = [['sea', ['mm-pw1', 'mm-pw2']], ['ap-southeast', ['mm-pc1', 'mm-pc2']]];
      const servers: Record<string, any> = {};
      try {
        for (const [region, who] of pairs) {
          for (const w of who) expect((await api.post('/v3/lobbies/ranked', { region }, as(w))).status).toBe(201);
          for (const w of who) expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'open' }, as(w))).status).toBe(200);
          const games = await Promise.all(who.map((w) => eventually(() => api.get('/v3/lobbies/ranked/me', as(w)), (r) => r.body.status === 'in_game', 60_000, `${w} in_game`)));
          expect(games[1].body.server.instance_id).toBe(games[0].body.server.instance_id);
          // (the servers read model may show the run a moment after the lobby is in_game)
          servers[region] = (await eventually(() => server.get(`/v3/servers/${games[0].body.server.instance_id}`), (r) => r.body.status === 'running', 15_000, `${region} server running`)).body;
        }
        expect(servers.sea).toMatchObject({ is_pool_server: true, pool_claimed_at: expect.any(String), status: 'running', match_id: expect.any(String) });
        expect(servers['ap-southeast']).toMatchObject({ is_pool_server: false, status: 'running', region: 'ap-southeast', match_id: expect.any(String) });
        expect(servers.sea.custom_data.match.teams.flat().sort()).toEqual(['mm-pw1', 'mm-pw2']);
        expect(servers['ap-southeast'].custom_data.match.teams.flat().sort()).toEqual(['mm-pc1', 'mm-pc2']);
        // the game's server stops on its own (here: stopped through the API): every lobby of the match is back to waiting
        expect((await server.delete(`/v3/servers/${servers['ap-southeast'].instance_id}`)).status).toBeLessThan(300);
        for (const w of ['mm-pc1', 'mm-pc2']) {
          const back = await eventually(() => api.get('/v3/lobbies/ranked/me', as(w)), (r) => r.body.status === 'waiting', 30_000, `${w} back to waiting`);
          expect(back.body).toMatchObject({ server: null, matchmaking: null });
        }
      } finally {
        expect((await server.post('/v3/projects/settings', { pool_config: { ...pool, enabled: false } })).status).toBe(200);
        for (const [, who] of pairs) for (const w of who) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(w));
      }
    });

    it('expansion: 1000 and 1450 under 100 +100 every 2 s match once both have waited 8 s, not before; explain says why meanwhile', async () => {
      expect((await api.post('/v3/lobbies/ranked', { region: 'us-east', state: { mmr: 1000 } }, as('mm-e1'))).status).toBe(201);
      expect((await api.post('/v3/lobbies/ranked', { region: 'us-east', state: { mmr: 1450 } }, as('mm-e2'))).status).toBe(201);
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'widening' }, as('mm-e1'))).status).toBe(200);
      const sent = Date.now(); // the later search's start is at or after this
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'widening' }, as('mm-e2'))).status).toBe(200);
      await new Promise((r) => setTimeout(r, 3000));
      const why = await api.get('/v3/lobbies/ranked/me/matchmaking', as('mm-e1'));
      expect(why.body).toMatchObject({ status: 'in_queue', rating: 1000, nearestGap: 450, currentRule: { field: 'mmr', nextExpansionAt: expect.any(String) } });
      expect(why.body.currentRule.maxDifference).toBeLessThan(450);
      expect(why.body.blockedBy).toContainEqual(expect.objectContaining({ code: 'no_candidate_in_window', rating: 1000, nearestGap: 450 }));
      // explain agrees with what happens: blocked, so still queued
      let found = 0;
      while (Date.now() - sent < 30_000) {
        const states = await Promise.all(['mm-e1', 'mm-e2'].map((w) => api.get('/v3/lobbies/ranked/me', as(w))));
        if (states.every((r) => r.body.status !== 'in_queue')) {
          found = Date.now() - sent;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      console.log(`expansion: matched ${found} ms after the later search's start (window reaches 500 at 8 s)`);
      expect(found).toBeGreaterThanOrEqual(8_000);
      expect(found).toBeLessThan(20_000);
      const games = await Promise.all(['mm-e1', 'mm-e2'].map((w) => eventually(() => api.get('/v3/lobbies/ranked/me', as(w)), (r) => r.body.status === 'in_game', 60_000, `${w} in_game`)));
      expect(games[1].body.server.instance_id).toBe(games[0].body.server.instance_id);
      for (const w of ['mm-e1', 'mm-e2']) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(w));
    });

    it('role modes: each team gets its roles; a player without a role is told why', async () => {
      const roles: [string, string][] = [['mm-r1', 'tank'], ['mm-r2', 'healer'], ['mm-r3', 'tank'], ['mm-r4', 'healer']];
      for (const [who, role] of roles) expect((await api.post('/v3/lobbies/ranked', { region: 'eu-north', state: { role } }, as(who))).status).toBe(201);
      expect((await api.post('/v3/lobbies/ranked', { region: 'eu-north', state: {} }, as('mm-r0'))).status).toBe(201);
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'squads' }, as('mm-r0'))).status).toBe(200);
      for (const [who] of roles) expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'squads' }, as(who))).status).toBe(200);
      const games = await Promise.all(roles.map(([who]) => eventually(() => api.get('/v3/lobbies/ranked/me', as(who)), (r) => r.body.status === 'in_game', 60_000, `${who} in_game`)));
      const serverId = games[0].body.server.instance_id;
      expect(games.every((g) => g.body.server.instance_id === serverId)).toBe(true);
      const teams: string[][] = (await server.get(`/v3/servers/${serverId}`)).body.custom_data.match.teams;
      const roleOf = Object.fromEntries(roles);
      expect(teams.map((t) => t.map((id) => roleOf[id]).sort())).toEqual([['healer', 'tank'], ['healer', 'tank']]);
      // the lobby without a role never matches, and explain says so
      expect((await api.get('/v3/lobbies/ranked/me', as('mm-r0'))).body.status).toBe('in_queue');
      expect((await api.get('/v3/lobbies/ranked/me/matchmaking', as('mm-r0'))).body.blockedBy).toContainEqual({ code: 'role_missing', playerId: 'mm-r0' });
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-r0'))).status).toBe(200);
      for (const [who] of roles) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(who));
    });

    it('engine-managed backfill in a role mode: a freed tank slot is filled by a queued tank, never by a healer', async () => {
      const players: [string, string][] = [['mm-rf1', 'tank'], ['mm-rf2', 'healer'], ['mm-rf3', 'tank'], ['mm-rf4', 'healer'], ['mm-rf5', 'healer'], ['mm-rf6', 'tank']];
      for (const [who, role] of players) expect((await api.post('/v3/lobbies/ranked', { region: 'sea', state: { role } }, as(who))).status).toBe(201);
      const four = players.slice(0, 4).map(([who]) => who);
      for (const who of four) expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'rolefill' }, as(who))).status).toBe(200);
      const games = await Promise.all(four.map((who) => eventually(() => api.get('/v3/lobbies/ranked/me', as(who)), (r) => r.body.status === 'in_game', 60_000, `${who} in_game`)));
      const serverId: string = games[0].body.server.instance_id;
      const before = await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.backfill_deadline !== null, 10_000, 'window');
      const tankTeam = before.body.roster.findIndex((t: string[]) => t.includes('mm-rf1'));
      // A tank leaves: its team lacks a tank; the other team is full.
      expect((await api.post('/v3/lobbies/ranked/me/end-match', undefined, as('mm-rf1'))).body.status).toBe('waiting');
      await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.roster_version === 1 && r.body.backfill_open, 15_000, 'slot open');
      // A healer queues first: no team lacks a healer, so it stays in the queue.
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'rolefill' }, as('mm-rf5'));
      await new Promise((r) => setTimeout(r, 2_000));
      expect((await api.get('/v3/lobbies/ranked/me', as('mm-rf5'))).body.status).toBe('in_queue');
      // A tank queues: it fills the tank's slot, straight into the game, on the team that lost it.
      await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'rolefill' }, as('mm-rf6'));
      const filled = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-rf6')), (r) => r.body.status === 'in_game', 30_000, 'tank filled in');
      expect(filled.body.server.instance_id).toBe(serverId);
      const full = await eventually(() => server.get(`/v3/servers/${serverId}/backfill`), (r) => r.body.roster_version === 2, 15_000, 'filled');
      expect(full.body.roster[tankTeam].sort()).toEqual([...before.body.roster[tankTeam].filter((id: string) => id !== 'mm-rf1'), 'mm-rf6'].sort());
      expect(full.body.backfill_open).toBe(false);
      expect((await api.get('/v3/lobbies/ranked/me', as('mm-rf5'))).body.status).toBe('in_queue');
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-rf5'))).status).toBe(200);
      for (const who of ['mm-rf2', 'mm-rf3', 'mm-rf4', 'mm-rf6']) await api.post('/v3/lobbies/ranked/me/end-match', undefined, as(who));
      await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'server stopped');
    });

    it('a search past its mode timeout returns to waiting with matchmakingError "timeout"', async () => {
      await api.post('/v3/lobbies/ranked', { region: 'ap-south' }, as('mm-lonely'));
      expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'brief' }, as('mm-lonely'))).status).toBe(200);
      const back = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-lonely')), (r) => r.body.status === 'waiting', 20_000, 'timed out');
      expect(back.body).toMatchObject({ matchmaking: null, matchmakingError: 'timeout' });
      // the next start clears it
      const again = await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'brief' }, as('mm-lonely'));
      expect(again.body.matchmakingError).toBeUndefined();
      expect((await api.delete('/v3/lobbies/ranked/me/matchmaking', as('mm-lonely'))).status).toBe(200);
    });

    it('the queue timeout fires while the matchmaking service is down (the lobbies service owns it)', async () => {
      if (!p.databaseUrl) return; // standalone: the matcher shares the one process
      await api.post('/v3/lobbies/ranked', { region: 'ap-south' }, as('mm-down'));
      await p.kill('matchmaking', 'SIGKILL');
      try {
        expect((await api.post('/v3/lobbies/ranked/me/matchmaking', { mode: 'brief' }, as('mm-down'))).status).toBe(200);
        const back = await eventually(() => api.get('/v3/lobbies/ranked/me', as('mm-down')), (r) => r.body.status === 'waiting', 20_000, 'timed out without a matcher');
        expect(back.body).toMatchObject({ matchmaking: null, matchmakingError: 'timeout' });
      } finally {
        await p.relaunch('matchmaking');
      }
    });

    it('replays the recorded period from the event store under the current and a proposed mode (npm run matchmaking:replay)', () => {
      if (!p.databaseUrl) return; // standalone's embedded PostgreSQL is not reachable from here; distributed runs it
      const cli = path.join(__dirname, '..', '..', 'apps', 'matchmaking', 'dist', 'replay', 'cli.js');
      const run = (...extra: string[]) => JSON.parse(execFileSync(process.execPath, [cli, '--project', p.projectId!, '--config', 'ranked', '--mode', 'duel', '--from', began, '--to', new Date().toISOString(), '--json', ...extra], {
        env: { ...process.env, DATABASE_URL: p.databaseUrl }, encoding: 'utf8',
      }));
      const current = run();
      // recorded: ann and bob matched; far, s1 (one search) and t1 (tenants) searched alone and left
      expect(current.actual).toMatchObject({ searches: 5, matched: 2, unmatched: 3, matches: 1 });
      expect(current.actual.meanRatingSpread).toBe(60);
      expect(current.simulated).toMatchObject({ searches: 5, matched: 2, unmatched: 3, matches: 1, meanRatingSpread: 60 });
      // a proposed window of 10 would have matched nobody
      const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-replay-'));
      writeFileSync(path.join(dir, 'tight.json'), JSON.stringify({ teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 10 }] }));
      expect(run('--rules', path.join(dir, 'tight.json')).simulated).toMatchObject({ searches: 5, matched: 0, unmatched: 5 });
    });
  });
}
