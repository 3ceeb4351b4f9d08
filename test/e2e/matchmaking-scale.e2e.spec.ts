// 1,000 lobbies queueing at once with two matchmaking replicas (distributed): no lobby is ever in two
// matches (checked on the match streams themselves), every match forms and gets exactly one server, 500
// real game processes (the benches' tiny Python game, ~10 MB each), and custom_data.match of each server
// names exactly the lobbies and players on it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { yazlZip } from '../../apps/builds/src/zip/testing/zip-fixture';
import { client } from '../support/http';
import { Platform, startDistributed } from '../support/processes';
import { uploadBuild } from './server-lifecycle';
import { everyServer } from '../support/server-list';

const as = (playerId: string) => ({ 'x-player-id': playerId });
const LOBBIES = 1000;

/** Runs `fn` over `items`, `concurrency` at a time. */
async function pool<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  }));
  return out;
}

describe('matchmaking at scale: 1,000 lobbies, two matcher replicas (distributed)', () => {
  jest.setTimeout(300_000);
  let p: Platform;

  beforeAll(async () => {
    p = await startDistributed('22000-22999', { SPAWNPOINT_LOBBY_QUEUE_STATS_MS: '1000' }, { extraServices: ['matchmaking'] });
    const server = client(p.baseUrl, p.serverKey);
    const tiny = readFileSync(path.join(__dirname, '..', '..', 'bench', 'fixtures', 'tiny-game', 'server'));
    await uploadBuild(server, 'tiny', await yazlZip([{ name: 'server', data: tiny, mode: 0o755 }]));
    expect((await server.post('/v3/projects/settings', { lobby_configs: [
      { name: 'crowd', serverSettings: { version_tag: 'tiny' }, matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 50, expandEvery: 1, expandBy: 200 }] } } } },
    ] })).status).toBe(200);
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('no lobby in two matches; every match formed with exactly one server; custom_data.match of each names its lobbies and players', async () => {
    const api = client(p.baseUrl, p.clientKey);
    const server = client(p.baseUrl, p.serverKey);
    const players = Array.from({ length: LOBBIES }, (_, i) => `crowd-${i}`);
    const created = await pool(players, 32, (who) => api.post('/v3/lobbies/crowd', { region: 'eu-west', state: { mmr: 1000 + ((players.indexOf(who) * 37) % 900) } }, as(who)));
    expect(created.filter((r) => r.status !== 201)).toEqual([]);
    const queued = await pool(players, 32, (who) => api.post('/v3/lobbies/crowd/me/matchmaking', { mode: 'duel' }, as(who)));
    expect(queued.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([]);

    // every lobby settles in a game
    const until = Date.now() + 240_000;
    let pending = players;
    let statuses: Record<string, number> = {};
    const games = new Map<string, { serverId: string; lobbyId: string }>();
    while (pending.length > 0 && Date.now() < until) {
      const states = await pool(pending, 16, (who) => api.get('/v3/lobbies/crowd/me', as(who)));
      statuses = {};
      for (const r of states) statuses[r.body.status] = (statuses[r.body.status] ?? 0) + 1;
      states.forEach((r, i) => {
        if (r.body.status === 'in_game') games.set(pending[i], { serverId: r.body.server.instance_id, lobbyId: r.body.id });
      });
      const stuck = states.filter((r) => r.body.status === 'waiting');
      expect(stuck.map((r) => `${r.body.host}: ${r.body.matchmakingError}`)).toEqual([]);
      pending = pending.filter((_, i) => states[i].body.status !== 'in_game');
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 1000));
    }
    expect({ pending: pending.length, statuses }).toEqual({ pending: 0, statuses: { in_game: expect.any(Number) } });

    // exactly one server per match: 500 servers, two lobbies on each, and its custom_data.match names them
    const byServer = new Map<string, { lobbies: string[]; players: string[] }>();
    for (const [who, g] of games) {
      const s = byServer.get(g.serverId) ?? { lobbies: [], players: [] };
      s.lobbies.push(g.lobbyId);
      s.players.push(who);
      byServer.set(g.serverId, s);
    }
    expect(byServer.size).toBe(LOBBIES / 2);
    const seen = await pool([...byServer], 16, async ([serverId, on]) => {
      const r = await server.get(`/v3/servers/${serverId}`);
      const match = r.body.custom_data?.match;
      const ok = r.body.status === 'running' && on.lobbies.length === 2
        && JSON.stringify([...match.lobbies].sort()) === JSON.stringify([...on.lobbies].sort())
        && JSON.stringify(match.teams.flat().sort()) === JSON.stringify([...on.players].sort());
      return ok ? null : `${serverId} ${r.body.status}: ${JSON.stringify(match)} vs ${JSON.stringify(on)}`;
    });
    expect(seen.filter((x) => x !== null)).toEqual([]);
    // no other server was started (a retried start is the same start)
    expect((await everyServer(server)).length).toBe(LOBBIES / 2);

    // the match streams: each lobby in exactly one formed match, and that match failed (its server refused)
    const db = new Client({ connectionString: p.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ stream_id: string; type: string; data: { lobbies?: { lobbyId: string }[] } }>(
        "SELECT stream_id, type, data FROM events WHERE stream_id LIKE 'match-%' AND type IN ('MatchProposed', 'MatchFormed', 'MatchServerAssigned') ORDER BY position",
      );
      const proposedLobbies = new Map<string, string[]>();
      const formed = new Set<string>();
      const assigned = new Map<string, number>();
      for (const r of rows) {
        if (r.type === 'MatchProposed') proposedLobbies.set(r.stream_id, r.data.lobbies!.map((l) => l.lobbyId));
        if (r.type === 'MatchFormed') formed.add(r.stream_id);
        if (r.type === 'MatchServerAssigned') assigned.set(r.stream_id, (assigned.get(r.stream_id) ?? 0) + 1);
      }
      const inFormed = [...formed].flatMap((m) => proposedLobbies.get(m)!);
      expect(inFormed.length).toBe(LOBBIES);
      expect(new Set(inFormed).size).toBe(LOBBIES);
      expect([...formed].filter((m) => assigned.get(m) !== 1)).toEqual([]);
    } finally {
      await db.end();
    }
  });
});
