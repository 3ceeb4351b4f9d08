// Authentication, authorisation and rate limiting for every route, from the route's @Access metadata.
import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RemoteError } from '@spawnpoint/messaging';
import { CONFIG, PlatformConfig, sha256 } from '@spawnpoint/platform';
import { parseServerToken, Principal } from '@spawnpoint/proto';
import { KeyAuthenticator } from './auth';
import { BucketKind } from './rate-limiter';
import { Draw, drawAll, lobbyKeyLimit, RateLimits } from './rate-limits';

export interface AccessRule {
  /**
   * who may call: none (health, docs, signed upload URLs), client (either key), server (server key only), admin (operator token),
   * game (a game machine's SPAWNPOINT_SERVER_TOKEN; the servers service checks it is its server's live token, ADR-0016).
   */
  auth: 'none' | 'client' | 'server' | 'admin' | 'game';
  bucket?: BucketKind;
  /** Player lobby writes also draw on the key's lobby bucket (ADR-0008), except cheap ones (heartbeat) that set this false. */
  keyBucket?: boolean;
  /** Server lifecycle mutations that a project can restrict to the server key (client_key_server_control). */
  serverControl?: boolean;
  /** Also accept `api_key` as a query parameter (lobby event streams: a browser EventSource sends no headers). */
  queryKey?: boolean;
}

export const ACCESS = 'spawnpoint:access';
export const Access = (rule: AccessRule) => SetMetadata(ACCESS, rule);

export type AuthedRequest = FastifyRequest & { principal?: Principal; gameToken?: { serverId: string; hash: string } };

const unauthorized = () => new RemoteError({ error: 'Invalid or missing API key', status: 401 });

@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeyAuthenticator,
    private readonly limiter: RateLimits,
    @Inject(CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** Each route's rule, read once (the metadata lookup costs more than the rest of a cached key check). */
  private readonly rules = new WeakMap<object, AccessRule>();

  private ruleOf(handler: object): AccessRule {
    let rule = this.rules.get(handler);
    if (!rule) this.rules.set(handler, (rule = this.reflector.get<AccessRule>(ACCESS, handler as never) ?? { auth: 'server' }));
    return rule;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.ruleOf(context.getHandler());
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    if (rule.auth === 'none') return true;
    if (rule.auth === 'admin') return this.admin(req);
    if (rule.auth === 'game') return this.game(req);

    const apiKey = req.headers['api-key'] ?? (rule.queryKey ? (req.query as Record<string, unknown> | undefined)?.api_key : undefined);
    if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > 200) throw unauthorized();
    const { principal, keyHash } = await this.keys.principal(apiKey);
    if (!principal) throw unauthorized();
    if (rule.auth === 'server' && principal.kind !== 'server') {
      throw new RemoteError({ error: 'This endpoint requires the server key', status: 403 });
    }
    if (rule.serverControl && principal.kind === 'client' && !principal.clientKeyServerControl) {
      throw new RemoteError({ error: 'Client keys may not control servers in this project (client_key_server_control is false)', status: 403 });
    }
    req.principal = principal;
    if (rule.bucket) {
      const take = await drawAll(this.limiter, this.buckets(rule, principal, keyHash, req));
      void reply.header('X-RateLimit-Limit', String(take.limit)).header('X-RateLimit-Remaining', String(take.remaining));
      if (!take.allowed) {
        void reply.header('Retry-After', String(take.retryAfterSeconds));
        throw new RemoteError({ error: 'Rate limit exceeded', status: 429 });
      }
    }
    return true;
  }

  /**
   * Read and write buckets are per API key; player buckets per project and x-player-id (a missing id is
   * refused later), and player lobby writes also per key (all players of a game together).
   */
  private buckets(rule: AccessRule, principal: Principal, keyHash: string, req: FastifyRequest): Draw[] {
    const kind = rule.bucket as BucketKind;
    if (kind === 'player') {
      const player = req.headers['x-player-id'] ?? (req.query as Record<string, unknown> | undefined)?.player_id;
      const draws = [{ key: `${principal.projectId}:player:${String(player)}`, limit: principal.rateLimits.player_per_second }];
      if (rule.keyBucket !== false) draws.push({ key: `${keyHash}:lobby`, limit: lobbyKeyLimit(principal.rateLimits) });
      return draws;
    }
    return [{ key: `${keyHash}:${kind}`, limit: kind === 'read' ? principal.rateLimits.read_per_second : principal.rateLimits.write_per_second }];
  }

  /** The token's form only; whether it is its server's live token is the servers service's answer. */
  private game(req: AuthedRequest): boolean {
    const header = req.headers.authorization ?? '';
    const raw = header.startsWith('Bearer ') ? header.slice(7) : req.headers['x-server-token'];
    const parsed = typeof raw === 'string' && raw.length <= 200 ? parseServerToken(raw) : null;
    if (!parsed) throw new RemoteError({ error: 'Invalid or missing server token (Authorization: Bearer $SPAWNPOINT_SERVER_TOKEN)', status: 401 });
    req.gameToken = parsed;
    return true;
  }

  private admin(req: FastifyRequest): boolean {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : '';
    const expected = this.config.adminToken;
    if (!expected) throw new RemoteError({ error: 'Admin API is disabled: set SPAWNPOINT_ADMIN_TOKEN', status: 401 });
    // Compare hashes so the comparison is constant-time whatever the lengths.
    if (!timingSafeEqual(Buffer.from(sha256(token)), Buffer.from(sha256(expected)))) {
      throw new RemoteError({ error: 'Invalid or missing admin token', status: 401 });
    }
    return true;
  }
}
