// 1,000 lobbies queueing at once with two matchmaking replicas (distributed): no lobby is ever in two
// matches (checked on the match streams themselves), every match forms, and every lobby ends where its
// match sent it. The mode's servers are refused on purpose (no build has its version tag), so the test
// exercises formation at scale, then the three failed starts, without 500 game processes on this machine.
import { Client } from 'pg';
import { client } from '../support/http';
import { Platform, startDistributed } from '../support/processes';

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
    p = await startDistributed('28600-28699', { SPAWNPOINT_LOBBY_QUEUE_STATS_MS: '1000' }, { extraServices: ['matchmaking'] });
    const server = client(p.baseUrl, p.serverKey);
    expect((await server.post('/v3/projects/settings', { lobby_configs: [
      { name: 'crowd', serverSettings: { version_tag: 'no-build-here' }, matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 50, expandEvery: 1, expandBy: 200 }] } } } },
    ] })).status).toBe(200);
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('no lobby in two matches; every match formed; every lobby back to waiting with the start error', async () => {
    const api = client(p.baseUrl, p.clientKey);
    const players = Array.from({ length: LOBBIES }, (_, i) => `crowd-${i}`);
    const created = await pool(players, 32, (who) => api.post('/v3/lobbies/crowd', { region: 'eu-west', state: { mmr: 1000 + ((players.indexOf(who) * 37) % 900) } }, as(who)));
    expect(created.filter((r) => r.status !== 201)).toEqual([]);
    const queued = await pool(players, 32, (who) => api.post('/v3/lobbies/crowd/me/matchmaking', { mode: 'duel' }, as(who)));
    expect(queued.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([]);

    // every lobby settles: waiting with the refusal of its match's server
    const until = Date.now() + 240_000;
    let pending = players;
    while (pending.length > 0 && Date.now() < until) {
      const states = await pool(pending, 16, (who) => api.get('/v3/lobbies/crowd/me', as(who)));
      pending = pending.filter((_, i) => !(states[i].body.status === 'waiting' && states[i].body.matchmakingError));
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(pending).toEqual([]);

    // the match streams: each lobby in exactly one formed match, and that match failed (its server refused)
    const db = new Client({ connectionString: p.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ stream_id: string; type: string; data: { lobbies?: { lobbyId: string }[] } }>(
        "SELECT stream_id, type, data FROM events WHERE stream_id LIKE 'match-%' AND type IN ('MatchProposed', 'MatchFormed', 'MatchFailed') ORDER BY position",
      );
      const proposedLobbies = new Map<string, string[]>();
      const formed = new Set<string>();
      const failed = new Set<string>();
      for (const r of rows) {
        if (r.type === 'MatchProposed') proposedLobbies.set(r.stream_id, r.data.lobbies!.map((l) => l.lobbyId));
        if (r.type === 'MatchFormed') formed.add(r.stream_id);
        if (r.type === 'MatchFailed') failed.add(r.stream_id);
      }
      const inFormed = [...formed].flatMap((m) => proposedLobbies.get(m)!);
      expect(inFormed.length).toBe(LOBBIES);
      expect(new Set(inFormed).size).toBe(LOBBIES);
      expect([...formed].every((m) => failed.has(m))).toBe(true);
    } finally {
      await db.end();
    }
  });
});
