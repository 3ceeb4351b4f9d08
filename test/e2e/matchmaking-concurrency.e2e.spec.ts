// Matchmaking under concurrency and a crash (distributed: two matchmaking replicas, two lobbies services):
// lobbies queue at once, the active matcher is killed -9 while matches form, and the standby takes over.
// Every lobby ends in exactly one game, each match has exactly one server, and custom_data.match of each
// server names exactly the lobbies that play on it.
import { Client } from 'pg';
import { client, eventually } from '../support/http';
import { Platform, startDistributed } from '../support/processes';
import { uploadSample } from './server-lifecycle';
import { everyServer } from '../support/server-list';

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
    expect((await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'arena', matchmaking: { modes: {
      duel: { teams: 2, playersPerTeam: 1 },
      sure: { teams: 2, playersPerTeam: 1, requireConfirmation: true, confirmationTimeout: 8 },
    } } }] })).status).toBe(200);
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
    const killedAt = Date.now();
    process.kill(first, 'SIGKILL');
    // the standby takes the lead within 2 s (its lock connection tries every tick)
    while (leaders().filter((pid) => pid !== first).length === 0 && Date.now() - killedAt < 10_000) await new Promise((r) => setTimeout(r, 20));
    const takeoverMs = Date.now() - killedAt;
    expect(takeoverMs).toBeLessThan(2_000);

    // some lobbies cancel while matches form: each either cancels (waiting) or is already in a match (409)
    const cancelled = await Promise.all(players.slice(0, CANCELLING).map((who) => api.delete('/v3/lobbies/arena/me/matchmaking', as(who))));
    expect(cancelled.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    // as many late lobbies as cancels went through, so every searching lobby has a partner
    const late = Array.from({ length: cancelled.filter((r) => r.status === 200).length }, (_, i) => `cc-late-${i}`);
    for (const who of late) {
      expect((await api.post('/v3/lobbies/arena', { region: 'eu-north' }, as(who))).status).toBe(201);
      expect((await api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(who))).status).toBe(200);
    }
    const everyone = [...players, ...late];
    // settled: every lobby in a game or waiting
    const statuses = () => Promise.all(everyone.map((who) => api.get('/v3/lobbies/arena/me', as(who))));
    const until = Date.now() + 100_000;
    let settled = await statuses();
    const unsettled = (rs: typeof settled) => rs.filter((r) => r.body.status !== 'in_game' && r.body.status !== 'waiting');
    // A cancel that lands after its match got its server leaves that game (decisions.md: one lobby of a
    // multi-lobby match leaves it; the others play on): it frees no partner, so a late lobby can be left
    // alone in the queue, nothing else forming. It gets one more partner.
    let aloneSince: number | null = null;
    while (unsettled(settled).length > 0 && Date.now() < until) {
      const alone = settled.filter((r) => r.body.status === 'in_queue');
      if (alone.length === 1 && unsettled(settled).length === 1) {
        aloneSince ??= Date.now();
        if (Date.now() - aloneSince > 2_000) {
          const who = `cc-late-${late.length}`;
          late.push(who);
          everyone.push(who);
          expect((await api.post('/v3/lobbies/arena', { region: 'eu-north' }, as(who))).status).toBe(201);
          expect((await api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(who))).status).toBe(200);
          aloneSince = null;
        }
      } else aloneSince = null;
      await new Promise((r) => setTimeout(r, 250));
      settled = await statuses();
    }
    const show = (rs: typeof settled) => rs.map((r) => `${r.body.host}:${r.body.status}${r.body.matchmakingError ? `(${r.body.matchmakingError})` : ''}`).join(' ');
    if (unsettled(settled).length > 0) {
      // what each stuck lobby waits for: its explain, and the events naming it (then the test fails below)
      const db = new Client({ connectionString: p.databaseUrl });
      await db.connect();
      for (const r of unsettled(settled)) {
        const why = await api.get('/v3/lobbies/arena/me/matchmaking', as(r.body.host));
        const { rows } = await db.query("SELECT stream_id, type, data->>'matchId' AS match FROM events WHERE data->>'lobbyId' = $1 OR data::text LIKE $2 ORDER BY position", [r.body.id, `%${r.body.id}%`]);
        console.error(`stuck ${r.body.host} (${r.body.id}): ${JSON.stringify(why.body)}\n${rows.map((e) => `  ${e.stream_id} ${e.type} ${e.match ?? ''}`).join('\n')}`);
      }
      const intents = await db.query("SELECT workflow, intent_key, attempts, last_error, failed_at FROM workflow_intents WHERE workflow = 'match-formation' ORDER BY id LIMIT 20");
      const checkpoints = await db.query("SELECT name, position::text FROM checkpoints WHERE name LIKE '%match%'");
      const head = await db.query('SELECT max(position)::text AS head FROM events');
      const states = await db.query("SELECT key, state FROM workflow_states WHERE workflow = 'match-formation' AND state->>'status' <> 'over' LIMIT 10");
      console.error(`intents ${JSON.stringify(intents.rows)}\ncheckpoints ${JSON.stringify(checkpoints.rows)} head ${head.rows[0].head}\nlive match states ${JSON.stringify(states.rows)}`);
      // every lobby as it ended, and every match's events in order (who was proposed with whom, and why it fell through)
      console.error(`lobbies ${settled.map((r) => `${r.body.host}=${r.body.id.slice(0, 8)}:${r.body.status}${r.body.server ? `@${r.body.server.instance_id.slice(0, 8)}` : ''}`).join(' ')}`);
      const matches = await db.query(`WITH e AS (
          SELECT stream_id, position, type || coalesce('(' || left(data->>'lobbyId', 8) || ')', '') || coalesce('[' || (data->>'reason') || ']', '')
            || coalesce('{' || (SELECT string_agg(left(x->>'lobbyId', 8), ',') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(data->'lobbies') = 'array' THEN data->'lobbies' ELSE '[]'::jsonb END) x) || '}', '') AS what
          FROM events WHERE category = 'match')
        SELECT stream_id, string_agg(what, ' ' ORDER BY position) AS events FROM e GROUP BY stream_id`);
      console.error(matches.rows.map((m) => `${m.stream_id}: ${m.events}`).join('\n'));
      await db.end();
      console.error(p.output().split('\n').filter((l) => /matcher|workflow|matchmaking/i.test(l)).slice(-40).join('\n'));
    }
    expect(show(unsettled(settled))).toBe('');
    // only the lobbies that cancelled wait; none is stuck reserved, found, matched or starting
    const waiting = settled.filter((r) => r.body.status === 'waiting');
    expect(show(waiting.filter((r) => !players.slice(0, CANCELLING).includes(r.body.host) || r.body.matchmakingError))).toBe('');
    const inGame = settled.filter((r) => r.body.status === 'in_game');
    expect(inGame.length + waiting.length).toBe(everyone.length);
    expect(leaders().filter((pid) => pid !== first)).toHaveLength(1);
    const byServer = new Map<string, string[]>();
    for (const r of inGame) byServer.set(r.body.server.instance_id, [...(byServer.get(r.body.server.instance_id) ?? []), r.body.id]);
    expect(lobbies.length).toBe(LOBBIES);
    const cancellers = new Set(lobbies.slice(0, CANCELLING));
    const inGameMatches = new Set<string>();
    const store = new Client({ connectionString: p.databaseUrl });
    await store.connect();
    try {
      for (const [serverId, onIt] of byServer) {
        const s = await server.get(`/v3/servers/${serverId}`);
        expect(s.body.status).toBe('running');
        expect([...s.body.custom_data.match.lobbies].sort()).toEqual([...onIt].sort());
        inGameMatches.add(s.body.match_id);
        // a duel plays with both lobbies, or with one whose partner cancelled after the server was assigned
        const { rows } = await store.query("SELECT data->>'lobbyId' AS lobby FROM events WHERE stream_id = $1 AND type = 'MatchLobbyLeft'", [`match-${s.body.match_id}`]);
        expect({ serverId, lobbies: onIt.length + rows.length, left: rows.filter((r) => !cancellers.has(r.lobby)) }).toEqual({ serverId, lobbies: 2, left: [] });
      }
    } finally {
      await store.end();
    }
    // no other server runs for these matches: a retried start is the same start, and a server a match
    // started but never got (it fell through meanwhile) is stopped (ADR-0012, 12.); none for a match in a game
    type Listed = { instance_id: string; status: string; match_id: string; custom_data?: { match?: unknown } };
    const strays = async () => ((await everyServer(server)) as Listed[])
      .filter((s) => s.custom_data?.match && !byServer.has(s.instance_id));
    let extra = await strays();
    const strayUntil = Date.now() + 30_000;
    while (extra.some((s) => s.status !== 'stopped') && Date.now() < strayUntil) {
      await new Promise((r) => setTimeout(r, 500));
      extra = await strays();
    }
    if (extra.length > 0) {
      // a server beside the games: the match's events, and its lobbies' (the test fails below if it runs)
      const db = new Client({ connectionString: p.databaseUrl });
      await db.connect();
      for (const s of extra) {
        const { rows } = await db.query("SELECT stream_id, type, data::text AS data FROM events WHERE stream_id = $1 OR data->>'matchId' = $2 OR data::text LIKE $3 ORDER BY position",
          [`match-${s.match_id}`, s.match_id, `%${s.instance_id}%`]);
        console.log(`server ${s.instance_id} ${s.status} of match ${s.match_id}, not in a game\n${rows.map((e) => `  ${e.stream_id} ${e.type} ${e.data.slice(0, 300)}`).join('\n')}`);
      }
      await db.end();
    }
    expect(extra.filter((s) => s.status !== 'stopped' || inGameMatches.has(s.match_id)).map((s) => `${s.instance_id} ${s.status} ${s.match_id}`)).toEqual([]);
  });

  it('a confirmation deadline survives a restart of the matchmaking service (its timer is durable; a confirm sent while it was down counts)', async () => {
    const api = client(p.baseUrl, p.clientKey);
    for (const who of ['dl-1', 'dl-2']) {
      expect((await api.post('/v3/lobbies/arena', { region: 'us-west' }, as(who))).status).toBe(201);
      expect((await api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'sure' }, as(who))).status).toBe(200);
    }
    for (const who of ['dl-1', 'dl-2']) await eventually(() => api.get('/v3/lobbies/arena/me', as(who)), (r) => r.body.status === 'match_found', 30_000, `${who} match_found`);
    // every matchmaking replica down (the first was killed in the test before): kill -9 the one left
    const pids = [...p.output().matchAll(/pid (\d+)\) is the active matcher/g)].map((m) => Number(m[1]));
    process.kill(pids[pids.length - 1], 'SIGKILL');
    expect((await api.post('/v3/lobbies/arena/me/confirm-match', undefined, as('dl-1'))).status).toBe(200);
    await p.relaunch('matchmaking');
    const dl2 = await eventually(() => api.get('/v3/lobbies/arena/me', as('dl-2')), (r) => r.body.status === 'waiting', 30_000, 'dl-2 dissolved');
    expect(dl2.body.matchmakingError).toBe('confirmation_timeout');
    const dl1 = await eventually(() => api.get('/v3/lobbies/arena/me', as('dl-1')), (r) => r.body.status === 'in_queue', 30_000, 'dl-1 back in the queue');
    expect(dl1.body.matchmaking.confirmation).toBeNull();
    expect((await api.delete('/v3/lobbies/arena/me/matchmaking', as('dl-1'))).status).toBe(200);
  });
});
