// Player identity for player lobby routes: with auth_config.provider other than `none`, the request's
// x-player-token must verify (with the project's provider) as the player named by x-player-id.
//  - the project's auth_config (secrets included) is asked of the projects service and kept 5 s
//    (every gateway forgets it at once when the projects service broadcasts a change, ADR-0020);
//  - a verified token is kept 60 s, never beyond a JWT's exp, keyed by project, provider config and the
//    token's SHA-256 (the token itself is not kept); rejections are not kept;
//  - a bad token: 401; a provider that cannot be asked (unreachable, timeout, 5xx): 503.
import { Inject, Injectable, Optional } from '@nestjs/common';
import { Bus, RemoteError, runWithDeadline } from '@spawnpoint/messaging';
import { BUS, sha256 } from '@spawnpoint/platform';
import { checkContract, SettingsPatch, SUBJECTS } from '@spawnpoint/proto';
import type { AuthConfig } from '../schemas';
import { IdentityRejected, ProviderUnavailable, VerifiedPlayer } from './errors';
import { DEFAULT_PROVIDER_TIMEOUT_MS } from './fetch-json';
import { JwtVerifier } from './jwt-verifier';
import { verifyPlayFabTicket } from './playfab-verifier';
import { verifySteamTicket } from './steam-verifier';
import { TtlCache } from './ttl-cache';

export const PLAYER_TOKEN_HEADER = 'x-player-token';
export const AUTH_CONFIG_TTL_MS = 5_000;
export const VERIFIED_TOKEN_TTL_MS = 60_000;
const MAX_TOKEN_LENGTH = 16_384;

export interface PlayerIdentityOptions {
  providerTimeoutMs?: number;
  authConfigTtlMs?: number;
  verifiedTtlMs?: number;
  now?: () => number;
}

/** Injection token for PlayerIdentityOptions (optional: the defaults are the production values). */
export const PLAYER_IDENTITY_OPTIONS = Symbol('PLAYER_IDENTITY_OPTIONS');

type ParsedConfig = AuthConfig | { provider: 'invalid'; problem: string };

const unauthorized = (error: string, detail?: string) => new RemoteError({ error, status: 401, ...(detail ? { detail } : {}) });

@Injectable()
export class PlayerIdentity {
  private readonly configs: TtlCache<ParsedConfig>;
  private readonly verified: TtlCache<VerifiedPlayer>;
  private readonly jwt: JwtVerifier;
  private readonly timeoutMs: number;
  private readonly configTtlMs: number;
  private readonly verifiedTtlMs: number;
  private readonly now: () => number;

  constructor(@Inject(BUS) private readonly bus: Bus, @Optional() @Inject(PLAYER_IDENTITY_OPTIONS) options: PlayerIdentityOptions = {}) {
    this.timeoutMs = options.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
    this.configTtlMs = options.authConfigTtlMs ?? AUTH_CONFIG_TTL_MS;
    this.verifiedTtlMs = options.verifiedTtlMs ?? VERIFIED_TOKEN_TTL_MS;
    this.now = options.now ?? Date.now;
    this.configs = new TtlCache(10_000, this.now);
    this.verified = new TtlCache(50_000, this.now);
    this.jwt = new JwtVerifier({ timeoutMs: this.timeoutMs, now: this.now });
  }

  /**
   * Resolves when the project needs no player verification, or `token` verifies as `playerId`.
   * Throws RemoteError 401 (missing, invalid or another player's token) or 503 (provider unavailable).
   */
  async verify(projectId: string, playerId: string, token: string | undefined): Promise<void> {
    const config = await this.authConfig(projectId);
    if (config.provider === 'none') return;
    if (config.provider === 'invalid') {
      throw unauthorized('Player identity cannot be verified: the project\'s auth_config is invalid', config.problem);
    }
    if (typeof token !== 'string' || token.length === 0) {
      throw unauthorized(`Missing ${PLAYER_TOKEN_HEADER} header: this project verifies players (auth_config.provider ${config.provider})`);
    }
    if (token.length > MAX_TOKEN_LENGTH) throw unauthorized('Invalid player token', `${PLAYER_TOKEN_HEADER} is longer than ${MAX_TOKEN_LENGTH} characters`);
    const player = await this.identify(projectId, config, token);
    if (player.playerId !== playerId) {
      throw unauthorized(`${PLAYER_TOKEN_HEADER} does not belong to the player named by x-player-id`);
    }
  }

  /** Forget a project's cached auth_config (after its settings changed). */
  forget(projectId: string): void {
    this.configs.delete(projectId);
  }

  /** Forget every project's (broadcasts may have been missed: a bus reconnect). */
  forgetAll(): void {
    this.configs.clear();
  }

  private authConfig(projectId: string): Promise<ParsedConfig> {
    return this.configs.getOrLoad(projectId, async () => {
      // Shared by the requests that miss meanwhile: not bound by the first one's deadline.
      const raw = await runWithDeadline(null, () => this.bus.request(SUBJECTS.projects.authConfig, { projectId }));
      const parsed = checkContract(SettingsPatch, { auth_config: raw ?? { provider: 'none' } }, []);
      const value: ParsedConfig = parsed.ok
        ? parsed.value.auth_config!
        : { provider: 'invalid', problem: parsed.issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ') };
      return { value, ttlMs: this.configTtlMs };
    });
  }

  private async identify(projectId: string, config: Exclude<AuthConfig, { provider: 'none' }>, token: string): Promise<VerifiedPlayer> {
    const key = `${projectId}\n${sha256(stableJson(config))}\n${sha256(token)}`;
    try {
      return await this.verified.getOrLoad(key, async () => {
        const player = await this.check(config, token);
        const ttlMs = Math.min(this.verifiedTtlMs, player.expiresAt !== undefined ? player.expiresAt - this.now() : Infinity);
        return { value: player, ttlMs };
      });
    } catch (err) {
      if (err instanceof IdentityRejected) throw unauthorized('Invalid player token', err.message);
      if (err instanceof ProviderUnavailable) {
        throw new RemoteError({ error: `Player identity provider unavailable (${config.provider})`, status: 503, detail: err.message });
      }
      throw err;
    }
  }

  private check(config: Exclude<AuthConfig, { provider: 'none' }>, token: string): Promise<VerifiedPlayer> {
    switch (config.provider) {
      case 'jwt': return this.jwt.verify(config, token);
      case 'playfab': return verifyPlayFabTicket(config, token, this.timeoutMs);
      case 'steam': return verifySteamTicket(config, token, this.timeoutMs);
    }
  }
}

/** JSON with sorted keys: the same config always gives the same cache key. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
