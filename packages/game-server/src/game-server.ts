// The game side of the game API: one class over fetch (Node 18+), configured from the environment the
// platform gives every game machine. Every call is safe to repeat (a repeated ready or report changes
// nothing), so a 429, a 502-504 or a dropped connection is retried with backoff.
import { GameServerError, GameServerNetworkError } from './errors';
import type { ErrorBody, GameMatch, GameReport, Server } from './types';

export type Health = 'healthy' | 'degraded' | 'unhealthy';

export interface GameServerOptions {
  /** The gateway base with /api (SPAWNPOINT_API_URL). */
  apiUrl: string;
  /** SPAWNPOINT_SERVER_TOKEN. */
  token: string;
  /** SPAWNPOINT_SERVER_ID (the token names it too). */
  serverId?: string;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  /** Attempts per call for transient failures; default 4. */
  attempts?: number;
  fetch?: typeof fetch;
}

export interface WatchClaimOptions {
  /** Between polls; default 1000 ms. */
  intervalMs?: number;
  signal?: AbortSignal;
}

const TRANSIENT = new Set([429, 502, 503, 504]);
const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
});

export class GameServer {
  readonly apiUrl: string;
  readonly serverId: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly fetchFn: typeof fetch;

  constructor(options: GameServerOptions) {
    if (!options.apiUrl || !options.token) throw new Error('GameServer needs apiUrl and token (SPAWNPOINT_API_URL, SPAWNPOINT_SERVER_TOKEN)');
    this.apiUrl = options.apiUrl.replace(/\/$/, '');
    this.token = options.token;
    this.serverId = options.serverId ?? /^spt_([0-9a-f-]{36})_/.exec(options.token)?.[1] ?? '';
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.attempts = Math.max(1, options.attempts ?? 4);
    this.fetchFn = options.fetch ?? fetch;
  }

  /** From SPAWNPOINT_API_URL, SPAWNPOINT_SERVER_TOKEN and SPAWNPOINT_SERVER_ID; null when not run by Spawnpoint. */
  static fromEnv(env: Record<string, string | undefined> = process.env): GameServer | null {
    const { SPAWNPOINT_API_URL: apiUrl, SPAWNPOINT_SERVER_TOKEN: token, SPAWNPOINT_SERVER_ID: serverId } = env;
    return apiUrl && token ? new GameServer({ apiUrl, token, serverId }) : null;
  }

  /** This server: status, ports, and once a pool server is claimed its name, custom_data and match_id. */
  self(): Promise<Server> {
    return this.call('GET', '/v3/game/self');
  }

  /** Ready for players: launching → running (the only way to running when the server was started with readiness "sdk"). */
  ready(): Promise<Server> {
    return this.call('POST', '/v3/game/ready');
  }

  setPlayers(players: number): Promise<Server> {
    return this.report({ players });
  }

  health(health: Health, message?: string | null): Promise<Server> {
    return this.report({ health, ...(message !== undefined ? { message } : {}) });
  }

  /** Players and/or health in one call; what is left out keeps its last value. */
  report(report: GameReport): Promise<Server> {
    return this.call('PUT', '/v3/game/status', report);
  }

  /** Stop this server (the game then gets SIGTERM); the token stops working. */
  requestStop(): Promise<Server> {
    return this.call('POST', '/v3/game/stop');
  }

  /** The match id and, for a matchmade match, its backfill state (roster, backfill_open, roster_version). */
  match(): Promise<GameMatch> {
    return this.call('GET', '/v3/game/match');
  }

  /**
   * Resolves with this server once it is claimed from its pool (pool_claimed_at set: name, custom_data and
   * match_id are the claimer's), at once for a server not in a pool. Polls self().
   */
  async watchClaim(options: WatchClaimOptions = {}): Promise<Server> {
    for (;;) {
      const s = await this.self();
      if (!s.is_pool_server || s.pool_claimed_at !== null) return s;
      await sleep(options.intervalMs ?? 1000, options.signal);
    }
  }

  /**
   * Resolves when this pool server is unclaimed: at once before its claim, and after it when the claim is
   * released back to the pool (a claim lease on a game that reported `resettable`): reset the game then, and
   * watchClaim() again for the next one.
   */
  async watchRelease(options: WatchClaimOptions = {}): Promise<Server> {
    for (;;) {
      const s = await this.self();
      if (s.is_pool_server && s.pool_claimed_at === null) return s;
      await sleep(options.intervalMs ?? 1000, options.signal);
    }
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const request = `${method} ${path}`;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchFn(`${this.apiUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (err) {
        if (attempt >= this.attempts) throw new GameServerNetworkError(request, err);
        await sleep(backoff(attempt));
        continue;
      }
      const text = await res.text();
      if (res.ok) return (text ? JSON.parse(text) : undefined) as T;
      if (TRANSIENT.has(res.status) && attempt < this.attempts) {
        const retryAfter = Number(res.headers.get('retry-after'));
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : backoff(attempt));
        continue;
      }
      throw new GameServerError(errorBody(text, res.status), request);
    }
  }
}

const backoff = (attempt: number) => Math.min(4000, 200 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);

function errorBody(text: string, status: number): ErrorBody {
  try {
    const body = JSON.parse(text) as ErrorBody;
    if (typeof body?.error === 'string') return body;
  } catch {
    // not JSON: a proxy's page
  }
  return { error: text.slice(0, 200) || `HTTP ${status}`, status };
}
