// The legacy lobby API's route handlers (legacy-lobby-api.ts wires them to Fastify): authentication,
// limits and player verification as on the main listener, then the lobbies service over the bus.
import { FastifyReply, FastifyRequest } from 'fastify';
import type { LobbyView } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { LobbyPage, Principal, SUBJECTS } from '@spawnpoint/proto';
import { checkRequestInputs } from '../http/input-limits';
import { drawAll, Draw, Limiter, lobbyKeyLimit } from '../http/rate-limits';
import { RateLimiter } from '../http/rate-limiter';
import { PLAYER_TOKEN_HEADER, TtlCache } from '../players';
import { configTimeout, DEFAULT_LEGACY_TIMEOUT, finishedLobby, LegacyLobby, legacyStatus, toLegacyLobby, v3Privacy } from './legacy-lobby';
import type { LegacyLobbyApiOptions } from './legacy-lobby-api';
import { LegacyCreateBody, LegacyJoinBody, LegacyKickQuery, LegacySettings, LegacyUpdateBody } from './schemas';

export const LEGACY_TOKEN_HEADER = 'client-auth-token';
/** GET /lobbies pages through browse and returns at most this many lobbies (newest first). */
export const MAX_LEGACY_LIST = 1000;
const BROWSE_PAGE = 100;
const SETTINGS_TTL_MS = 5_000;

const unauthorized = () => new RemoteError({ error: 'Invalid or missing API key', status: 401 });
const forbidden = (error: string) => new RemoteError({ error, status: 403 });

export type Ctx = { projectId: string; config: string };

/** The route handlers, over the bus. */
export class LegacyLobbies {
  private readonly limiter: Limiter;
  private readonly lobbyConfigs = new TtlCache<unknown>(10_000);

  constructor(private readonly o: LegacyLobbyApiOptions) {
    this.limiter = o.limiter ?? new RateLimiter();
  }

  /** api-key → principal (401 when missing or unknown); then the input limits (422), as on the main listener. */
  async authenticate(req: FastifyRequest): Promise<{ principal: Principal; keyHash: string }> {
    const apiKey = req.headers['api-key'];
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

  /** A player write: rate limit per player, then client-auth-token verified as `playerId` when the project has a provider. */
  async player(req: FastifyRequest, reply: FastifyReply, principal: Principal, playerId: string): Promise<void> {
    // Per player, and all players of the key together (ADR-0008).
    await this.limit(reply, { key: `${principal.projectId}:player:${playerId}`, limit: principal.rateLimits.player_per_second },
      { key: `${principal.projectId}:${principal.kind}:lobby`, limit: lobbyKeyLimit(principal.rateLimits) });
    const token = req.headers[LEGACY_TOKEN_HEADER];
    try {
      await this.o.identity.verify(principal.projectId, playerId, typeof token === 'string' ? token : undefined);
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
        value: (await this.o.bus.request<{ lobby_configs?: unknown }>(SUBJECTS.projects.getSettings, { projectId: ctx.projectId }))?.lobby_configs ?? null,
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

  request<T = LobbyView>(subject: string, payload: unknown): Promise<T> {
    return this.o.bus.request<T>(subject, payload);
  }

  // ---- routes ------------------------------------------------------------------------------------

  async list(ctx: Ctx, publicOnly: boolean): Promise<LegacyLobby[]> {
    const found: LobbyView[] = [];
    let next: string | null = null;
    do {
      const page: LobbyPage<LobbyView> = await this.request<LobbyPage<LobbyView>>(SUBJECTS.lobbies.browse, {
        ...ctx, limit: BROWSE_PAGE, includePrivate: !publicOnly, ...(next ? { next_token: next } : {}),
      });
      found.push(...page.lobbies);
      next = page.next_token;
    } while (next && found.length < MAX_LEGACY_LIST);
    const timeout = await this.timeout(ctx);
    return found.slice(0, MAX_LEGACY_LIST).map((l) => toLegacyLobby(l, timeout));
  }

  async create(ctx: Ctx, b: LegacyCreateBody): Promise<LegacyLobby> {
    const body = defined({
      name: b.name, maxPlayers: b.maxPlayers, region: b.region, isPrivate: v3Privacy(b.isPrivate, b.useInviteCode), allowLateJoin: b.allowLateJoin,
      settings: b.settings,
    });
    return this.legacy(ctx, await this.request(SUBJECTS.lobbies.create, { ...ctx, playerId: b.host, body }));
  }

  /**
   * PUT: the requester must be a member of the lobby. Changes apply one after another (settings,
   * playerState, status, host), each checked by the lobbies service as the v3 route would be.
   */
  async update(ctx: Ctx, lobbyId: string, b: LegacyUpdateBody): Promise<LegacyLobby> {
    const who = { ...ctx, playerId: b.requesterId, lobbyId };
    let lobby = await this.request(SUBJECTS.lobbies.getMine, who);
    if (b.settings) {
      const changes = settingsChanges(b.settings);
      if (Object.keys(changes).length > 0) lobby = await this.request(SUBJECTS.lobbies.updateSettings, { ...who, changes });
    }
    if (b.playerState) lobby = await this.request(SUBJECTS.lobbies.updateMyState, { ...who, state: b.playerState });
    if (b.status === 'finished') {
      const last = await this.legacy(ctx, lobby);
      await this.request(SUBJECTS.lobbies.close, who);
      return finishedLobby(last, new Date().toISOString());
    }
    if (b.status === 'in_game' && lobby.status !== 'in_game' && lobby.status !== 'starting') {
      lobby = await this.request(SUBJECTS.lobbies.start, who);
    }
    if (b.status === 'waiting' && legacyStatus(lobby.status) === 'in_game') lobby = await this.request(SUBJECTS.lobbies.endMatch, who);
    if (b.host !== undefined && b.host !== lobby.host) lobby = await this.request(SUBJECTS.lobbies.transferHost, { ...who, targetId: b.host });
    return this.legacy(ctx, lobby);
  }

  async join(ctx: Ctx, where: { lobbyId: string } | { code: string }, b: LegacyJoinBody): Promise<LegacyLobby> {
    return this.legacy(ctx, await this.request(SUBJECTS.lobbies.join, { ...ctx, playerId: b.playerId, ...where, ...(b.metadata ? { state: b.metadata } : {}) }));
  }

  /** isKick: the host removes playerId. Otherwise a player leaves (only itself). The lobby after the change. */
  async remove(ctx: Ctx, lobbyId: string, playerId: string, q: LegacyKickQuery): Promise<LegacyLobby> {
    if (q.isKick) {
      return this.legacy(ctx, await this.request(SUBJECTS.lobbies.kick, { ...ctx, playerId: q.requesterId, lobbyId, targetId: playerId }));
    }
    if (q.requesterId !== playerId) throw forbidden('Only the player itself may leave; the host removes others with isKick=true');
    const who = { ...ctx, playerId, lobbyId };
    const before = await this.legacy(ctx, await this.request(SUBJECTS.lobbies.getMine, who));
    await this.request(SUBJECTS.lobbies.leave, who);
    try {
      return await this.legacy(ctx, await this.request(SUBJECTS.lobbies.adminGet, { ...ctx, lobbyId }));
    } catch (err) {
      // The lobby went with the player (it was the last one, or the host left a hostLeaveBehavior close lobby).
      if (err instanceof RemoteError && err.body.status === 404) return finishedLobby(before, new Date().toISOString(), playerId);
      throw err;
    }
  }
}

function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Legacy settings → the v3 settings change (useInviteCode folds into isPrivate). */
function settingsChanges(s: LegacySettings): Record<string, unknown> {
  return defined({
    name: s.name, maxPlayers: s.maxPlayers, isPrivate: v3Privacy(s.isPrivate, s.useInviteCode), allowLateJoin: s.allowLateJoin, region: s.region,
    settings: s.settings,
  });
}
