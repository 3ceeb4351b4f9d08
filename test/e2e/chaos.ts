// The chaos suite's load and its checks (issue 36): clients through both gateways doing what players and
// game backends do — cold starts, pool claims, lobby joins, matchmaking — while a replica dies or a
// dependency goes away; afterwards, what must hold: no acknowledged write lost or doubled, no orphan or
// wrongly killed game, nothing stuck in a transient status, every error a 503 (or a connection the dead
// gateway cut).
import { gameProcesses, orphansOf } from '../support/game-processes';
import { client, eventually, Res } from '../support/http';
import { everyServer } from '../support/server-list';

type Api = ReturnType<typeof client>;

export const CHAOS_CONFIG = {
  lobby_configs: [{ name: 'arena', maxPlayers: 8, matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } }],
  pool_config: { enabled: true, regions: { 'us-east': { min_ready: 2, max: 4 } }, build_name: 'default' },
};
const as = (playerId: string) => ({ 'x-player-id': playerId });

export interface Figures {
  requests: number;
  /** Answers by status class of error: `500`, `503`, … and `conn` (the connection failed: a dead gateway). */
  errors: Record<string, number>;
  starts: number;
  claims: number;
  joins: number;
  matches: number;
}

/** What the clients were told happened: the writes acknowledged, to be found afterwards. */
export interface Acked {
  starts: { id: string; name: string }[];
  claims: string[];
  joins: { lobbyId: string; host: string; player: string }[];
  /** Pairs of players whose lobbies both entered matchmaking (answered 200). */
  queued: [string, string][];
  /** Every start name sent (acknowledged or not): none may exist twice. */
  startNames: string[];
  /** Every player that made or joined a lobby (answered or not): each leaves after the trial. */
  players: string[];
  /** Every player whose lobby was sent into matchmaking (answered or not: a 503 may still have queued it). */
  matchmaking: string[];
}

export class Load {
  readonly acked: Acked = { starts: [], claims: [], joins: [], queued: [], startNames: [], players: [], matchmaking: [] };
  readonly figures: Figures = { requests: 0, errors: {}, starts: 0, claims: 0, joins: 0, matches: 0 };
  /** Error answers with what was asked: the report of a failed trial. */
  readonly bad: string[] = [];
  /** When the trial began (less a margin): the checks read stopped servers created since. */
  readonly since = new Date(Date.now() - 5_000).toISOString();
  private running = true;
  private workers: Promise<void>[] = [];
  private seq = 0;

  constructor(private readonly gateways: string[], private readonly serverKey: string, private readonly clientKey: string, readonly tag: string) {}

  start(workers = 4): void {
    const ops = [() => this.coldStart(), () => this.claim(), () => this.join(), () => this.matchmake()];
    this.workers = Array.from({ length: workers }, (_, w) => (async () => {
      for (let i = w; this.running; i++) {
        await ops[i % ops.length]().catch((err: Error) => this.bad.push(`threw: ${err.message}`));
        await new Promise((r) => setTimeout(r, 50));
      }
    })());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private api(key: string): Api {
    return client(this.gateways[Math.floor(Math.random() * this.gateways.length)], key);
  }

  /** One request: its answer, or null when the connection failed; error statuses counted. */
  private async call(what: string, send: () => Promise<Res>): Promise<Res | null> {
    this.figures.requests++;
    let res: Res;
    try {
      res = await send();
    } catch (err) {
      this.count('conn');
      this.bad.push(`${what}: ${(err as Error).message}`);
      return null;
    }
    if (res.status >= 500) {
      this.count(String(res.status));
      this.bad.push(`${what}: ${res.status} ${JSON.stringify(res.body)} retry-after=${res.headers.get('retry-after')}`);
    }
    return res;
  }

  private count(kind: string): void {
    this.figures.errors[kind] = (this.figures.errors[kind] ?? 0) + 1;
  }

  private async coldStart(): Promise<void> {
    const name = `${this.tag}-s${this.seq++}`;
    this.acked.startNames.push(name);
    const res = await this.call(`start ${name}`, () => this.api(this.serverKey).post('/v3/servers/start', { name, region: 'eu-uk', ttl: 600 }));
    if (res?.status === 201) {
      this.acked.starts.push({ id: res.body.instance_id, name });
      this.figures.starts++;
    }
  }

  private async claim(): Promise<void> {
    const name = `${this.tag}-c${this.seq++}`;
    this.acked.startNames.push(name);
    const res = await this.call(`claim ${name}`, () => this.api(this.serverKey).post('/v3/servers/start', { name, region: 'us-east', ttl: 600 }));
    if (res?.status === 201) {
      this.acked.claims.push(res.body.instance_id);
      this.acked.starts.push({ id: res.body.instance_id, name });
      this.figures.claims++;
    }
  }

  private async join(): Promise<void> {
    const n = this.seq++;
    const host = `${this.tag}-h${n}`;
    this.acked.players.push(host, `${this.tag}-j${n}-1`, `${this.tag}-j${n}-2`);
    const made = await this.call(`create ${host}`, () => this.api(this.clientKey).post('/v3/lobbies/arena', { region: 'eu-north' }, as(host)));
    if (made?.status !== 201) return;
    for (const k of [1, 2]) {
      const player = `${this.tag}-j${n}-${k}`;
      const res = await this.call(`join ${player}`, () => this.api(this.clientKey).post('/v3/lobbies/arena/join', { lobbyId: made.body.id }, as(player)));
      if (res?.status === 200) {
        this.acked.joins.push({ lobbyId: made.body.id, host, player });
        this.figures.joins++;
      }
    }
  }

  private async matchmake(): Promise<void> {
    const n = this.seq++;
    const pair: [string, string] = [`${this.tag}-m${n}-a`, `${this.tag}-m${n}-b`];
    this.acked.players.push(...pair);
    for (const who of pair) {
      const made = await this.call(`create ${who}`, () => this.api(this.clientKey).post('/v3/lobbies/arena', { region: 'eu-west' }, as(who)));
      if (made?.status !== 201) return;
    }
    let queued = 0;
    for (const who of pair) {
      this.acked.matchmaking.push(who);
      const res = await this.call(`matchmaking ${who}`, () => this.api(this.clientKey).post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(who)));
      if (res?.status === 200) queued++;
    }
    if (queued === 2) {
      this.acked.queued.push(pair);
      this.figures.matches++;
    }
  }
}

/** Errors other than a 503 (with Retry-After) or a connection the killed gateway cut: none allowed. */
export function unexpectedErrors(load: Load, allowConnectionErrors: boolean): string[] {
  return load.bad.filter((line) => {
    if (/: 503 .*retry-after=\d+/.test(line)) return false;
    if (allowConnectionErrors && /fetch failed|ECONNRESET|ECONNREFUSED|socket|other side closed|terminated/i.test(line)) return false;
    return true;
  });
}

/**
 * After a trial: the acknowledged writes are all there once, every acknowledged game runs (none killed),
 * no game process without its server, nothing left launching, every queued pair in one game; then the
 * trial's servers and lobbies are ended so the next trial starts clean.
 */
export async function checkAndClean(gateway: string, serverKey: string, clientKey: string, dataDir: string, load: Load, history?: (lobbyId: string) => Promise<string[]>): Promise<void> {
  const server = client(gateway, serverKey);
  const player = client(gateway, clientKey);
  const servers = await eventually(() => everyServer(server, '', load.since), (l) => l.every((s: any) => s.status === 'running' || s.status === 'stopped'), 60_000, 'no server left launching');
  const byId = new Map(servers.map((s: any) => [s.instance_id, s]));
  // Not doubled: a start name exists at most once.
  const perName = new Map<string, number>();
  for (const s of servers) if (load.acked.startNames.includes(s.name)) perName.set(s.name, (perName.get(s.name) ?? 0) + 1);
  expect([...perName].filter(([, n]) => n > 1)).toEqual([]);
  // Not lost and not wrongly killed: every acknowledged start is running (a failure shows the server's last log lines: why it stopped).
  const notRunning = load.acked.starts.filter((s) => byId.get(s.id)?.status !== 'running');
  const why = await Promise.all(notRunning.map(async (s) => {
    const logs = await server.get(`/v3/servers/${s.id}/logs?start_time=-1h`).catch(() => null);
    const lines = ((logs?.body?.logs ?? logs?.body?.lines ?? []) as any[]).slice(-3).map((l) => l.message ?? l);
    return [s.name, byId.get(s.id)?.status ?? 'missing', lines];
  }));
  expect(why).toEqual([]);
  // A pool server is claimed once.
  expect(new Set(load.acked.claims).size).toBe(load.acked.claims.length);
  // Joins kept.
  const joins = await inParallel(load.acked.joins, async (j) => {
    const lobby = await eventually(() => player.get('/v3/lobbies/arena/me', as(j.host)), (r) => r.status !== 503, 30_000, `lobby of ${j.host}`);
    return [j.player, lobby.status, lobby.body.players?.map((x: any) => x.id).includes(j.player)];
  });
  expect(joins.filter(([, status, kept]) => status !== 200 || !kept)).toEqual([]);
  // Any two queued lobbies may meet, and a pair may have queued only one of its lobbies (the other's request
  // failed): with an odd number queued, one waits for a partner. Matchmaking is not stuck when at most one
  // is left in the queue; that one gets a partner, so every queued lobby must then end in a game.
  const waiting = await eventually(async () => {
    const states = await Promise.all(load.acked.matchmaking.map(async (who) => (await player.get('/v3/lobbies/arena/me', as(who))).body?.status));
    return load.acked.matchmaking.filter((_, i) => states[i] === 'in_queue');
  }, (w) => w.length <= 1, 60_000, 'at most one lobby left in the matchmaking queue');
  if (waiting.length === 1) {
    const partner = `${load.tag}-partner`;
    load.acked.players.push(partner);
    expect((await player.post('/v3/lobbies/arena', { region: 'eu-west' }, as(partner))).status).toBe(201);
    expect((await player.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(partner))).status).toBe(200);
  }
  // Every queued lobby ends in a game, on a running server of a duel: two lobbies, each on that one server.
  const inGame = new Map<string, string[]>();
  await inParallel(load.acked.queued.flat(), async (who) => {
    const lobby = await eventually(() => player.get('/v3/lobbies/arena/me', as(who)), (r) => r.body.status === 'in_game', 60_000, `${who} in_game`).catch(async (err: Error) => {
      // The lobby's and its match's events say where it went instead (a failed trial's post-mortem).
      const id = (await player.get('/v3/lobbies/arena/me', as(who)).catch(() => null))?.body?.id;
      throw new Error(`${err.message}\n${id && history ? (await history(id)).join('\n') : ''}`);
    });
    const id = lobby.body.server.instance_id as string;
    inGame.set(id, [...(inGame.get(id) ?? []), lobby.body.id]);
  });
  for (const [id, lobbies] of inGame) {
    // The lobby is in_game on the server's ServerRunning; the servers read model may apply it a moment later.
    const match = (await eventually(() => server.get(`/v3/servers/${id}`), (r) => r.body?.status !== 'launching', 15_000, `match server ${id} running`)).body;
    expect([id, match.status]).toEqual([id, 'running']);
    for (const lobby of lobbies) expect(match.custom_data.match.lobbies).toContain(lobby);
    expect(match.custom_data.match.lobbies).toHaveLength(2);
  }
  // No orphan: one game process per live server, none for anything else. Both read afresh on each look: a pool
  // refill may start a game between two reads.
  const orphans = async () => {
    const processes = await gameProcesses(dataDir);
    const live = await everyServer(server, '', load.since);
    return orphansOf(processes, new Set(live.filter((s: any) => s.status === 'running' || s.status === 'launching').map((s: any) => s.instance_id as string)));
  };
  expect(await eventually(orphans, (o) => o.length === 0, 20_000, 'no orphan game process').catch(orphans)).toEqual([]);

  // Clean: every player of the trial leaves its lobby (a lobby in a game ends it first), every server but
  // the pool's unclaimed ones stops.
  await inParallel(load.acked.players, async (who) => {
    const left = await player.delete('/v3/lobbies/arena/me', as(who));
    if (left.status === 409) {
      await player.post('/v3/lobbies/arena/me/end-match', undefined, as(who));
      await player.delete('/v3/lobbies/arena/me', as(who));
    }
  });
  const live = (await everyServer(server, '', load.since)).filter((s) => s.status !== 'stopped' && !(s.is_pool_server && !s.pool_claimed_at));
  const stops = await inParallel(live, async (s) => {
    const stop = await eventually(() => server.delete(`/v3/servers/${s.instance_id}`), (r) => r.status !== 503, 20_000, `stop of ${s.name}`);
    return [s.name, stop.status];
  });
  expect(stops.filter(([, status]) => status !== 200)).toEqual([]);
  await eventually(() => everyServer(server, '', load.since), (l) => l.every((s: any) => s.status === 'stopped' || (s.is_pool_server && !s.pool_claimed_at)), 60_000, 'trial servers stopped');
}

/** `fn` over every item, a few at a time (as several clients would): the results in the items' order. */
async function inParallel<T, R>(items: T[], fn: (item: T) => Promise<R>, width = 8): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  }));
  return results;
}
