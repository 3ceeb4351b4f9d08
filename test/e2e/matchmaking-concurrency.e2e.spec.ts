// Matchmaking under concurrency and a crash (distributed: two matchmaking replicas, two lobbies services):
// lobbies queue at once, the active matcher is killed -9 while matches form, and the standby takes over.
// Every lobby ends in exactly one game, each match has exactly one server, and custom_data.match of each
// server names exactly the lobbies that play on it.
import { Client } from 'pg';
import { client, eventually } from '../support/http';
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
    while (unsettled(settled).length > 0 && Date.now() < until) {
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
      await db.end();
      console.error(p.output().split('\n').filter((l) => /matcher|workflow|matchmaking/i.test(l)).slice(-40).join('\n'));
    }
    expect(show(unsettled(settled))).toBe('');
    // only the lobbies that cancelled wait; none is stuck reserved, found, matched or starting
    const waiting = settled.filter((r) => r.body.status === 'waiting');
    expect(show(waiting.filter((r) => !players.slice(0, CANCELLING).includes(r.body.host) || r.body.matchmakingError))).toBe('');
    const inGame = settled.filter((r) => r.body.status === 'in_game');
    expect(inGame.length + waiting.length).toBe(everyone.length);
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
