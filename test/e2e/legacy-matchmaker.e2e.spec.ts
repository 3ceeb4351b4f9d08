// The legacy matchmaker on the legacy listener, in both modes: tickets are lobbies' searches and matches are
// matchmade game servers (one store with v3). Every response goes through client(), so it is also checked
// against the hosted service's published description of these routes.
import { SignJWT } from 'jose';
import { client, eventually } from '../support/http';
import { Platform, startDistributed, startStandalone } from '../support/processes';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MM = 'duels';
const SECRET = 'e2e-legacy-matchmaker-secret-0123456789abcdef';
const jwtFor = (sub: string) => new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(SECRET));

function describeLegacyMatchmaker(mode: string, start: () => Promise<Platform>): void {
  describe(`legacy matchmaker (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let server: Api;
    let api: Api;
    let legacy: Api;
    let matchmakerId: string;
    const q = () => `matchmaker_name=${MM}&matchmaker_id=${matchmakerId}`;

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      api = client(p.baseUrl, p.clientKey);
      legacy = client(p.legacyUrl, p.clientKey);
      const settings = await server.post('/v3/projects/settings', { lobby_configs: [
        { name: MM, matchmaking: { modes: {
          ranked: { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'skill', maxDifference: 100 }] },
        } } },
      ] });
      expect(settings.status).toBe(200);
      matchmakerId = settings.body.lobby_configs[0].id;
      expect(typeof matchmakerId).toBe('string');
      await uploadSample(server);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('refuses what it cannot do: unknown matchmaker 404, bad input 400, no key 401', async () => {
      const unknown = await legacy.post('/matchmaker/tickets', { matchmaker_name: 'no-such-matchmaker', player_id: 'lm-x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ status: 404, error: expect.stringContaining('no-such-matchmaker') });
      // the default configuration exists but has no matchmaking modes: not a matchmaker
      expect((await legacy.get('/matchmaker/tickets?matchmaker_name=default')).status).toBe(404);
      expect((await legacy.get(`/matchmaker/tickets?matchmaker_name=nope&matchmaker_id=nope`)).status).toBe(404);

      const noName = await legacy.post('/matchmaker/tickets', { player_id: 'lm-x' });
      expect(noName.status).toBe(400);
      expect(noName.body).toMatchObject({ status: 400, detail: [{ loc: ['body', 'matchmaker_name'] }] });
      const badElo = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-x', elo: 'high' });
      expect(badElo.status).toBe(400);
      expect(badElo.body.detail[0].loc).toEqual(['body', 'elo']);
      expect((await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-x', regions: ['atlantis'] })).body).toMatchObject({
        status: 400, detail: [{ loc: ['body', 'regions'] }],
      });
      expect((await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'bad id with spaces' })).status).toBe(400);
      expect((await legacy.get('/matchmaker/tickets')).status).toBe(400);
      expect((await legacy.get(`/matchmaker/tickets/not-a-ticket?${q()}`)).status).toBe(404);
      expect((await legacy.get(`/matchmaker/tickets?${q()}`, { 'api-key': 'wrong' })).status).toBe(401);
      expect((await legacy.post(`/matchmaker/matches?${q()}`, {})).status).toBe(405);
      // nothing was created by the refusals
      expect((await api.get(`/v3/lobbies/${MM}/me`, as('lm-x'))).status).toBe(404);
    });

    it('matches two tickets into one game, lists them, and ends the match (its server stops)', async () => {
      const a = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, matchmaker_id: matchmakerId, player_id: 'lm-ana', elo: 1500, regions: ['eu-west'], gameBuild: 'Build_1.2.3' });
      expect(a.status).toBe(201);
      expect(a.body).toMatchObject({
        ticket_id: expect.stringMatching(UUID), player_id: 'lm-ana', matchmaker_id: matchmakerId, elo: 1500, regions: ['eu-west'], gameBuild: 'Build_1.2.3', mode: 'ranked',
      });
      expect(['In Queue', 'matched']).toContain(a.body.status);
      expect(Math.abs(a.body.created_at - Date.now())).toBeLessThan(60_000);
      // a ticket is a lobby's search: the player's solo lobby, searching, with the rating in the mode's field
      const lobby = await api.get(`/v3/lobbies/${MM}/me`, as('lm-ana'));
      expect(lobby.body).toMatchObject({ id: a.body.ticket_id, maxPlayers: 1, isPrivate: true, region: 'eu-west', players: [{ id: 'lm-ana', state: { skill: 1500 } }] });
      // one search per player
      expect((await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-ana', elo: 1500 })).status).toBe(409);

      const queued = await legacy.get(`/matchmaker/tickets?${q()}`);
      expect(queued.status).toBe(200);
      expect(queued.body.map((t: { ticket_id: string }) => t.ticket_id)).toContain(a.body.ticket_id);
      const asPlayer = await legacy.get(`/matchmaker/tickets/lm-ana?${q()}&type=player`);
      expect(asPlayer.body).toMatchObject({ status: 'in_queue', matchmaker_name: MM, ticket: { ticket_id: a.body.ticket_id } });

      const b = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-ben', elo: 1540, regions: ['eu-west'] });
      expect(b.status).toBe(201);

      const matchedA = await eventually(() => legacy.get(`/matchmaker/tickets/${a.body.ticket_id}?${q()}`), (r) => r.body.status === 'matched', 60_000, 'ticket A matched');
      const matchedB = await eventually(() => legacy.get(`/matchmaker/tickets/${b.body.ticket_id}?${q()}`), (r) => r.body.status === 'matched', 60_000, 'ticket B matched');
      const match = matchedA.body.match;
      expect(match).toMatchObject({
        match_id: expect.any(String), matchmaker_id: matchmakerId, gameBuild: 'Build_1.2.3', backfill: false, maxPlayers: 2, currentPlayers: 2, mode: 'ranked',
        server: { instance_id: expect.stringMatching(UUID), region: 'eu-west' },
      });
      expect(match.server.network_ports.length).toBeGreaterThan(0);
      for (const port of match.server.network_ports) expect(port).toMatchObject({ host: expect.any(String), external_port: expect.any(Number), protocol: expect.stringMatching(/^(udp|tcp)$/) });
      expect(['created', 'active']).toContain(match.status);
      expect(match.players.map((t: { player_id: string }) => t.player_id).sort()).toEqual(['lm-ana', 'lm-ben']);
      expect(match.teams).toHaveLength(2);
      expect(matchedB.body.match.match_id).toBe(match.match_id);
      // the same game as v3 sees it
      const v3server = await server.get(`/v3/servers/${match.server.instance_id}`);
      expect(v3server.body).toMatchObject({ match_id: match.match_id, network_ports: match.server.network_ports.map((port: object) => expect.objectContaining(port)) });
      expect((await legacy.get(`/matchmaker/tickets/lm-ben?${q()}&type=player`)).body).toMatchObject({ status: 'matched', match: { match_id: match.match_id } });

      // matched tickets are no longer queued; the match is listed
      const afterMatch = await legacy.get(`/matchmaker/tickets?${q()}`);
      expect(afterMatch.body.map((t: { ticket_id: string }) => t.ticket_id)).not.toContain(a.body.ticket_id);
      const matches = await legacy.get(`/matchmaker/matches?${q()}`);
      expect(matches.status).toBe(200);
      expect(matches.body.find((m: { match_id: string }) => m.match_id === match.match_id)).toMatchObject({ currentPlayers: 2, server: { instance_id: match.server.instance_id } });

      const ended = await legacy.delete(`/matchmaker/matches/${match.match_id}?${q()}`);
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ match_id: match.match_id, matchmaker_id: matchmakerId, player_count: 2, tickets_cleaned: 2, missing_ticket_count: 0, server_id: match.server.instance_id });
      await eventually(() => server.get(`/v3/servers/${match.server.instance_id}`), (r) => r.body.status === 'stopped', 30_000, 'match server stopped');
      expect((await legacy.get(`/matchmaker/tickets/${a.body.ticket_id}?${q()}`)).status).toBe(404);
      expect((await api.get(`/v3/lobbies/${MM}/me`, as('lm-ana'))).status).toBe(404);
      const gone = await legacy.get(`/matchmaker/matches?${q()}`);
      expect(gone.body.map((m: { match_id: string }) => m.match_id)).not.toContain(match.match_id);
      expect((await legacy.delete(`/matchmaker/matches/${match.match_id}?${q()}`)).status).toBe(404);
      // the players may search again
      const again = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-ana', elo: 1500, regions: ['eu-west'] });
      expect(again.status).toBe(201);
      expect((await legacy.delete(`/matchmaker/tickets/${again.body.ticket_id}?${q()}`)).status).toBe(200);
    });

    it('cancels a queued ticket by DELETE: the search ends and its lobby is gone', async () => {
      const c = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-cid', elo: 9000, regions: ['sea'] });
      expect(c.status).toBe(201);
      expect(c.body.status).toBe('In Queue');
      const cancelled = await legacy.delete(`/matchmaker/tickets/${c.body.ticket_id}?${q()}`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', ticket_id: c.body.ticket_id });
      expect((await api.get(`/v3/lobbies/${MM}/me`, as('lm-cid'))).status).toBe(404);
      expect((await legacy.get(`/matchmaker/tickets/${c.body.ticket_id}?${q()}`)).status).toBe(404);
      expect((await legacy.get(`/matchmaker/tickets?${q()}`)).body.map((t: { ticket_id: string }) => t.ticket_id)).not.toContain(c.body.ticket_id);
      expect((await legacy.get(`/matchmaker/tickets/lm-cid?${q()}&type=player`)).body).toMatchObject({ status: 'none' });
      expect((await legacy.delete(`/matchmaker/tickets/${c.body.ticket_id}?${q()}`)).status).toBe(404);
    });

    it('lets a matched player leave its match by DELETE of its ticket: removed, the match closes with the last', async () => {
      const a = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-dan', elo: 3000, regions: ['ap-north'] });
      const b = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-eve', elo: 3010, regions: ['ap-north'] });
      expect([a.status, b.status]).toEqual([201, 201]);
      const matched = await eventually(() => legacy.get(`/matchmaker/tickets/${b.body.ticket_id}?${q()}`), (r) => r.body.status === 'matched', 60_000, 'ticket matched');
      await eventually(() => legacy.get(`/matchmaker/tickets/${a.body.ticket_id}?${q()}`), (r) => r.body.status === 'matched', 60_000, 'ticket matched');
      const { match_id: matchId, server: { instance_id: serverId } } = matched.body.match;
      const first = await legacy.delete(`/matchmaker/tickets/${a.body.ticket_id}?${q()}`);
      expect(first.body).toEqual({ message: expect.any(String), status: 'removed', ticket_id: a.body.ticket_id, match_id: matchId, match_status: 'active' });
      expect((await server.get(`/v3/servers/${serverId}`)).body.status).not.toBe('stopped');
      const last = await legacy.delete(`/matchmaker/tickets/${b.body.ticket_id}?${q()}`);
      expect(last.body).toMatchObject({ status: 'removed', match_id: matchId, match_status: 'closed' });
      await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'match server stopped');
    });

    it('verifies client-auth-token as the ticket player when the project has a provider', async () => {
      expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'jwt', secret: SECRET } })).status).toBe(200);
      try {
        const missing = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-jwt', elo: 50_000 });
        expect(missing.status).toBe(401);
        expect((await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-jwt', elo: 50_000 }, { 'client-auth-token': await jwtFor('lm-other') })).status).toBe(401);
        const ok = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, player_id: 'lm-jwt', elo: 50_000 }, { 'client-auth-token': await jwtFor('lm-jwt') });
        expect(ok.status).toBe(201);
        // another player's token may not cancel it; reading needs none
        expect((await legacy.delete(`/matchmaker/tickets/${ok.body.ticket_id}?${q()}`, { 'client-auth-token': await jwtFor('lm-other') })).status).toBe(401);
        expect((await legacy.get(`/matchmaker/tickets/${ok.body.ticket_id}?${q()}`)).body.status).toBe('In Queue');
        expect((await legacy.delete(`/matchmaker/tickets/${ok.body.ticket_id}?${q()}`, { 'client-auth-token': await jwtFor('lm-jwt') })).body.status).toBe('cancelled');
      } finally {
        expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'none' } })).status).toBe(200);
      }
    });

    it('gives an anonymous player id when none is sent, and finds the matchmaker by id alone', async () => {
      const anon = await legacy.post('/matchmaker/tickets', { matchmaker_name: MM, matchmaker_id: matchmakerId, regions: [], elo: 20_000 });
      expect(anon.status).toBe(201);
      expect(anon.body).toMatchObject({ player_id: expect.stringMatching(/^anonymous-/), regions: ['us-east'] });
      const byId = await legacy.get(`/matchmaker/tickets/${anon.body.ticket_id}?matchmaker_id=${matchmakerId}`);
      expect(byId.body).toMatchObject({ ticket_id: anon.body.ticket_id, status: 'In Queue' });
      expect((await legacy.delete(`/matchmaker/tickets/${anon.body.ticket_id}?matchmaker_id=${matchmakerId}`)).body.status).toBe('cancelled');
    });
  });
}

describeLegacyMatchmaker('standalone', () => startStandalone({ portRange: '31300-31399' }));
describeLegacyMatchmaker('distributed', () => startDistributed('31400-31599'));
