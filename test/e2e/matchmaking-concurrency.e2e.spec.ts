// Matchmaking under concurrency and a crash (distributed: two matchmaking replicas, two lobbies services):
// lobbies queue at once, the active matcher is killed -9 while matches form, and the standby takes over.
// Every lobby ends in exactly one game, each match has exactly one server, and custom_data.match of each
// server names exactly the lobbies that play on it.
import { client } from '../support/http';
import { Platform, startDistributed } from '../support/processes';
import { uploadSample } from './server-lifecycle';

const as = (playerId: string) => ({ 'x-player-id': playerId });
const LOBBIES = 24;
/** Lobbies that cancel while matches form (racing their reservations). */
const CANCELLING = 6;

describe('matchmaking: concurrent queueing, a matcher killed -9 (distributed, two replicas)', () => {
  jest.setTimeout(240_000);
  let p: Platform;

  beforeAll(async () => {
    p = await startDistributed('28400-28599', {}, { extraServices: ['matchmaking', 'lobbies'] });
    const server = client(p.baseUrl, p.serverKey);
    expect((await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'arena', matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } }] })).status).toBe(200);
    await uploadSample(server);
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('every lobby in exactly one game or back to waiting (cancels racing formation); one server per match; custom_data.match names exactly its lobbies', async () => {
    const api = client(p.baseUrl, p.clientKey);
    const server = client(p.baseUrl, p.serverKey);
    const players = Array.from({ length: LOBBIES }, (_, i) => `cc-${i}`);
    const lobbies = await Promise.all(players.map(async (who) => {
      const created = await api.post('/v3/lobbies/arena', { region: 'eu-north' }, as(who));
      expect(created.status).toBe(201);
      return created.body.id as string;
    }));
    const queued = await Promise.all(players.map((who) => api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(who))));
    expect(queued.map((r) => r.status)).toEqual(players.map(() => 200));
    // kill -9 the active matcher while matches form; the standby takes over
    const leaders = () => [...p.output().matchAll(/pid (\d+)\) is the active matcher/g)].map((m) => Number(m[1]));
    const first = leaders()[0];
    expect(first).toEqual(expect.any(Number));
    process.kill(first, 'SIGKILL');

    // some lobbies cancel while matches form: each either cancels (waiting) or is already in a match (409)
    const cancelled = await Promise.all(players.slice(0, CANCELLING).map((who) => api.delete('/v3/lobbies/arena/me/matchmaking', as(who))));
    expect(cancelled.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    // a lobby whose partner cancelled goes back to the queue; re-pair the leftovers with late lobbies
    const late = Array.from({ length: CANCELLING }, (_, i) => `cc-late-${i}`);
    for (const who of late) {
      expect((await api.post('/v3/lobbies/arena', { region: 'eu-north' }, as(who))).status).toBe(201);
      expect((await api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(who))).status).toBe(200);
    }
    const everyone = [...players, ...late];
    // settled: every lobby in a game or waiting, but for at most one alone in the queue (an odd count)
    const statuses = () => Promise.all(everyone.map((who) => api.get('/v3/lobbies/arena/me', as(who))));
    const until = Date.now() + 120_000;
    let settled = await statuses();
    const unsettled = (rs: typeof settled) => rs.filter((r) => r.body.status !== 'in_game' && r.body.status !== 'waiting');
    while ((unsettled(settled).length > 1 || unsettled(settled).some((r) => r.body.status !== 'in_queue')) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 250));
      settled = await statuses();
    }
    // at most one lobby is left alone in the queue (an odd count); none is stuck reserved, found or matched
    const stillQueued = settled.filter((r) => r.body.status === 'in_queue');
    expect(stillQueued.length).toBeLessThanOrEqual(1);
    const waiting = settled.filter((r) => r.body.status === 'waiting').map((r) => r.body.host);
    for (const who of waiting) expect(players.slice(0, CANCELLING)).toContain(who);
    const inGame = settled.filter((r) => r.body.status === 'in_game');
    expect(inGame.length + waiting.length + stillQueued.length).toBe(everyone.length);
    expect(inGame.length % 2).toBe(0);
    expect(leaders().filter((pid) => pid !== first)).toHaveLength(1);
    const byServer = new Map<string, string[]>();
    for (const r of inGame) byServer.set(r.body.server.instance_id, [...(byServer.get(r.body.server.instance_id) ?? []), r.body.id]);
    expect(byServer.size).toBe(inGame.length / 2);
    expect(lobbies.length).toBe(LOBBIES);
    for (const [serverId, onIt] of byServer) {
      const s = await server.get(`/v3/servers/${serverId}`);
      expect(s.body.status).toBe('running');
      expect([...s.body.custom_data.match.lobbies].sort()).toEqual([...onIt].sort());
    }
    // no other server was started for these matches (a retried start is the same start)
    const all = await server.get('/v3/servers?limit=100');
    const matchServers = all.body.servers.filter((s: { custom_data?: { match?: unknown } }) => s.custom_data?.match);
    expect(matchServers.map((s: { instance_id: string }) => s.instance_id).sort()).toEqual([...byServer.keys()].sort());
  });
});
