// The legacy lobby API's route handlers (legacy-lobby-routes.ts wires them to Fastify): authentication,
// limits and player verification as on the main listener, then the lobbies service over the bus.
import { FastifyReply, FastifyRequest } from 'fastify';
import type { LobbyView } from '@spawnpoint/domain';
import { BusSubjects, RemoteError } from '@spawnpoint/messaging';
import { LobbyPage, Principal, SUBJECTS } from '@spawnpoint/proto';
import { checkRequestInputs } from '../http/input-limits';
import { drawAll, Draw, Limiter, lobbyKeyLimit } from '../http/rate-limits';
import { RateLimiter } from '../http/rate-limiter';
import { PLAYER_TOKEN_HEADER, TtlCache } from '../players';
import { configTimeout, DEFAULT_LEGACY_TIMEOUT, LegacyLobby, toLegacyLobby } from './legacy-lobby';
import type { LegacyLobbyApiOptions } from './legacy-options';
import { LegacyCreateBody, LegacyJoinBody, LegacyKickQuery } from './schemas';

export const LEGACY_TOKEN_HEADER = 'client-auth-token';
/** GET /lobbies pages through browse and returns at most this many lobbies (newest first). */
export const MAX_LEGACY_LIST = 1000;
const BROWSE_PAGE = 100;
const SETTINGS_TTL_MS = 5_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const unauthorized = () => new RemoteError({ error: 'Invalid or missing API key', status: 401 });
const forbidden = (error: string) => new RemoteError({ error, status: 403 });

export type Ctx = { projectId: string; config: string };

/** The published document answers 400 where v3 answers 409 (already in a lobby of the configuration, lobby closed to joins). */
export async function as400On409<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof RemoteError && err.body.status === 409) throw new RemoteError({ ...err.body, status: 400 });
    throw err;
  }
}

const isNotFound = (err: unknown) => err instanceof RemoteError && err.body.status === 404;

/** The route handlers, over the bus. */
export class LegacyLobbies {
  private readonly limiter: Limiter;
  private readonly lobbyConfigs = new TtlCache<unknown>(10_000);

  constructor(private readonly o: LegacyLobbyApiOptions) {
    this.limiter = o.limiter ?? new RateLimiter();
  }

  /** api-key (or `queryKey`, an event stream's api_key) → principal (401 when missing or unknown); then the input limits (422). */
  async authenticate(req: FastifyRequest, queryKey?: string): Promise<{ principal: Principal; keyHash: string }> {
    const apiKey = req.headers['api-key'] ?? queryKey;
    if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > 200) throw unauthorized();
    const { principal, keyHash } = await this.o.keys.principal(apiKey);
    if (!principal) throw unauthorized();
    checkRequestInputs(req);
    return { principal, keyHash };
  }

  /** The same buckets as v3: reads per key, player writes per project and player (this listener's own counters). */
  async limit(reply: FastifyReply, ...draws: Draw[]): Promise<void> {
    const take = await drawAll(this.limiter, draws.map((d) => ({ ...d, key: `legacy:${d.key}` })));
    void reply.header('X-RateLimit-Limit', String(take.limit)).header('X-RateLimit-Remaining', String(take.remaining));
    if (!take.allowed) {
      void reply.header('Retry-After', String(take.retryAfterSeconds));
      throw new RemoteError({ error: 'Rate limit exceeded', status: 429 });
    }
  }

  /** A read: the key's read bucket. */
  read(reply: FastifyReply, principal: Principal, keyHash: string): Promise<void> {
    return this.limit(reply, { key: `${keyHash}:read`, limit: principal.rateLimits.read_per_second });
  }

  /**
   * A player write: rate limit per player (and, unless `keyBucket` is false, all players of the key
   * together, ADR-0008), then client-auth-token verified as `playerId` when the project has a provider.
   */
  async player(req: FastifyRequest, reply: FastifyReply, principal: Principal, playerId: string, keyBucket = true): Promise<void> {
    const draws: Draw[] = [{ key: `${principal.projectId}:player:${playerId}`, limit: principal.rateLimits.player_per_second }];
    if (keyBucket) draws.push({ key: `${principal.projectId}:${principal.kind}:lobby`, limit: lobbyKeyLimit(principal.rateLimits) });
    await this.limit(reply, ...draws);
    await this.verify(req, principal, playerId);
  }

  /** client-auth-token (or `queryToken`, an event stream's) verified as `playerId`, exactly as x-player-token on v3. */
  async verify(req: FastifyRequest, principal: Principal, playerId: string, queryToken?: string): Promise<void> {
    const header = req.headers[LEGACY_TOKEN_HEADER];
    const token = typeof header === 'string' ? header : queryToken;
    try {
      await this.o.identity.verify(principal.projectId, playerId, token);
    } catch (err) {
      if (err instanceof RemoteError && err.body.status === 401) {
        const error = err.body.error.replaceAll(PLAYER_TOKEN_HEADER, LEGACY_TOKEN_HEADER).replace('named by x-player-id', `${playerId} of this request`);
        throw new RemoteError({ ...err.body, error });
      }
      throw err;
    }
  }

  /** The configuration's idle timeout (seconds), from the project's lobby_configs (kept 5 s); 300 when none is set. */
  async timeout(ctx: Ctx): Promise<number> {
    try {
      const configs = await this.lobbyConfigs.getOrLoad(ctx.projectId, async () => ({
        value: (await this.o.bus.request(SUBJECTS.projects.getSettings, { projectId: ctx.projectId }))?.lobby_configs ?? null,
        ttlMs: SETTINGS_TTL_MS,
      }));
      return configTimeout(configs, ctx.config);
    } catch {
      return DEFAULT_LEGACY_TIMEOUT;
    }
  }

  async legacy(ctx: Ctx, lobby: LobbyView): Promise<LegacyLobby> {
    return toLegacyLobby(lobby, await this.timeout(ctx));
  }

  request<S extends keyof BusSubjects>(subject: S, payload: BusSubjects[S][0]): Promise<BusSubjects[S][1]> {
    return this.o.bus.request(subject, payload);
  }

  // ---- routes ------------------------------------------------------------------------------------

  async list(ctx: Ctx, publicOnly: boolean): Promise<LegacyLobby[]> {
    const found: LobbyView[] = [];
    for (let offset = 0; found.length < MAX_LEGACY_LIST;) {
      const page: LobbyPage<LobbyView> = await this.request(SUBJECTS.lobbies.browse, { ...ctx, limit: BROWSE_PAGE, offset, includePrivate: !publicOnly });
      found.push(...page.lobbies);
      if (!page.hasMore || page.lobbies.length === 0) break;
      offset += page.lobbies.length;
    }
    const timeout = await this.timeout(ctx);
    return found.slice(0, MAX_LEGACY_LIST).map((l) => toLegacyLobby(l, timeout));
  }

  /** A lobby by id, or else the lobby of the player with that id (the Unity SDK finds a player's lobby so); 404 when neither. */
  async lobbyOrPlayersLobby(ctx: Ctx, id: string): Promise<LegacyLobby> {
    if (UUID.test(id)) {
      try {
        return await this.legacy(ctx, await this.request(SUBJECTS.lobbies.adminGet, { ...ctx, lobbyId: id.toLowerCase() }));
      } catch (err) {
        if (!isNotFound(err)) throw err; // player ids may be UUIDs too
      }
    }
    return this.legacy(ctx, await this.request(SUBJECTS.lobbies.getMine, { ...ctx, playerId: id }));
  }

  async players(ctx: Ctx, lobbyId: string): Promise<string[]> {
    return (await this.request(SUBJECTS.lobbies.adminGet, { ...ctx, lobbyId })).players.map((p) => p.id);
  }

  async create(ctx: Ctx, b: LegacyCreateBody): Promise<LegacyLobby> {
    // useInviteCode needs nothing of its own: every lobby has a code (decisions.md), whatever its privacy.
    const body = defined({ name: b.name, maxPlayers: b.maxPlayers, region: b.region, isPrivate: b.isPrivate, allowLateJoin: b.allowLateJoin, settings: b.settings });
    return this.legacy(ctx, await as400On409(this.request(SUBJECTS.lobbies.create, { ...ctx, playerId: b.host, body })));
  }

  async join(ctx: Ctx, where: { lobbyId: string } | { code: string }, b: LegacyJoinBody): Promise<LegacyLobby> {
    const joined = this.request(SUBJECTS.lobbies.join, { ...ctx, playerId: b.playerId, ...where, ...(b.metadata ? { state: b.metadata } : {}) });
    try {
      return await this.legacy(ctx, await as400On409(joined));
    } catch (err) {
      // The published join by code answers an invalid code with 400 (an unknown configuration stays 404, as on every route).
      if ('code' in where && isNotFound(err) && /invite code/.test((err as RemoteError).body.error)) throw new RemoteError({ ...(err as RemoteError).body, status: 400 });
      throw err;
    }
  }

  /**
   * isKick: the host removes playerId. Otherwise a player leaves (only itself). The lobby after the change,
   * or null when it went with the player (the last one, or a host leaving a hostLeaveBehavior close lobby).
   */
  async remove(ctx: Ctx, lobbyId: string, playerId: string, q: LegacyKickQuery): Promise<LegacyLobby | null> {
    if (q.isKick) {
      return this.legacy(ctx, await this.request(SUBJECTS.lobbies.kick, { ...ctx, playerId: q.requesterId, lobbyId, targetId: playerId }));
    }
    if (q.requesterId !== playerId) throw forbidden('Only the player itself may leave; the host removes others with isKick=true');
    await this.request(SUBJECTS.lobbies.leave, { ...ctx, playerId, lobbyId });
    try {
      return await this.legacy(ctx, await this.request(SUBJECTS.lobbies.adminGet, { ...ctx, lobbyId }));
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  /** DELETE /lobbies/{id}: the host (playerId) deletes its lobby; without a player, the server key deletes any (v3 admin delete). */
  async deleteLobby(ctx: Ctx, lobbyId: string, playerId: string | undefined): Promise<void> {
    if (playerId !== undefined) await this.request(SUBJECTS.lobbies.close, { ...ctx, playerId, lobbyId });
    else await this.request(SUBJECTS.lobbies.adminDelete, { ...ctx, lobbyId });
  }

  async heartbeat(ctx: Ctx, lobbyId: string, playerId: string): Promise<void> {
    await this.request(SUBJECTS.lobbies.heartbeat, { ...ctx, playerId, lobbyId });
  }
}

export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
