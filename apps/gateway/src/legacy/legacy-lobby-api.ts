// The legacy lobby API (docs/api.md "Legacy lobby API"): a small Fastify instance on its own port
// (LEGACY_PORT) beside the main gateway app. It views the same lobbies as v3 through the same bus subjects,
// and reuses the gateway's api-key authentication, player verification (client-auth-token, like
// x-player-token), error body, 422 validation details and per-player rate limits.
import Fastify, { FastifyInstance } from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { KeyAuthenticator } from '../http/auth';
import { logger } from '@spawnpoint/logging';
import { requestLogFields } from '../http/access-log';
import { httpErrorBody } from '../http/error-filter';
import { Limiter, RateLimits } from '../http/rate-limits';
import { installRequestHooks, LISTENER_OPTIONS } from '../http/request-hooks';
import { parse } from '../http/validation';
import { PlayerIdentity } from '../players';
import { LEGACY_TOKEN_HEADER, LegacyLobbies } from './legacy-lobbies';
import { LEGACY_MATCHMAKER_PATHS, registerLegacyMatchmaker } from './legacy-matchmaker-routes';
import {
  LegacyCodeParams, LegacyConfigQuery, LegacyCreateBody, LegacyJoinBody, LegacyKickQuery, LegacyListQuery, LegacyLobbyParams, LegacyPlayerParams,
  LegacyUpdateBody,
} from './schemas';

const log = logger('http');

const CORS_ALLOWED = `api-key, ${LEGACY_TOKEN_HEADER}, content-type, x-request-id, traceparent`;
const CORS_EXPOSED = 'x-request-id, traceparent, x-ratelimit-limit, x-ratelimit-remaining, retry-after';

export interface LegacyLobbyApiOptions {
  bus: Bus;
  keys: KeyAuthenticator;
  identity: PlayerIdentity;
  /** The gateway's counters (shared by replicas in distributed mode); this listener's keys are its own. Default: in memory. */
  limiter?: Limiter;
  port: number;
  host: string;
}

export interface LegacyLobbyApi {
  /** Base URL of the listener ({legacy_base_url}). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The legacy routes and their allowed methods (405 with Allow for another method on a known path). */
const PATHS: [RegExp, string[]][] = [
  [/^\/lobbies$/, ['GET', 'POST']],
  [/^\/lobbies\/code\/[^/]+\/players$/, ['POST']],
  [/^\/lobbies\/[^/]+$/, ['PUT']],
  [/^\/lobbies\/[^/]+\/players$/, ['POST']],
  [/^\/lobbies\/[^/]+\/players\/[^/]+$/, ['DELETE']],
  ...LEGACY_MATCHMAKER_PATHS,
];

function allowed(url: string): string[] {
  const path = url.split('?')[0].replace(/\/+$/, '');
  return PATHS.find(([re]) => re.test(path))?.[1] ?? [];
}

/** The Fastify instance with the legacy routes (not listening yet). */
export function buildLegacyLobbyApp(o: LegacyLobbyApiOptions): FastifyInstance {
  const app = Fastify(LISTENER_OPTIONS);
  const h = new LegacyLobbies(o);
  // As on the main listener, with this API's methods and headers.
  installRequestHooks(app, { methods: 'GET, POST, PUT, DELETE', allowedHeaders: CORS_ALLOWED, exposedHeaders: CORS_EXPOSED });
  app.setErrorHandler((err, req, reply) => {
    const body = httpErrorBody(err);
    if (body.status >= 500 && body.status !== 503) log.error({ err, ...requestLogFields(req, reply) }, `${req.method} ${req.routeOptions.url ?? 'unmatched'} failed`);
    void reply.status(body.status).type('application/json').send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    const methods = allowed(req.url);
    if (methods.length > 0) {
      void reply.status(405).header('allow', methods.join(', ')).send({ error: `Method ${req.method} not allowed; use ${methods.join(', ')}`, status: 405 });
      return;
    }
    void reply.status(404).send({ error: 'Not found', status: 404 });
  });

  app.get('/lobbies', async (req, reply) => {
    const { principal, keyHash } = await h.authenticate(req);
    await h.limit(reply, { key: `${keyHash}:read`, limit: principal.rateLimits.read_per_second });
    const q = parse(LegacyListQuery, req.query, 'query');
    return h.list({ projectId: principal.projectId, config: q.name }, q.publicOnly ?? false);
  });

  app.post('/lobbies', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyCreateBody, req.body, 'body');
    await h.player(req, reply, principal, b.host);
    const lobby = await h.create({ projectId: principal.projectId, config: q.name }, b);
    void reply.status(201);
    return lobby;
  });

  app.put('/lobbies/:id', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id } = parse(LegacyLobbyParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyUpdateBody, req.body, 'body');
    await h.player(req, reply, principal, b.requesterId);
    return h.update({ projectId: principal.projectId, config: q.name }, id, b);
  });

  app.post('/lobbies/:id/players', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id } = parse(LegacyLobbyParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyJoinBody, req.body, 'body');
    await h.player(req, reply, principal, b.playerId);
    return h.join({ projectId: principal.projectId, config: q.name }, { lobbyId: id }, b);
  });

  app.post('/lobbies/code/:code/players', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { code } = parse(LegacyCodeParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyJoinBody, req.body, 'body');
    await h.player(req, reply, principal, b.playerId);
    return h.join({ projectId: principal.projectId, config: q.name }, { code }, b);
  });

  app.delete('/lobbies/:id/players/:playerId', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id, playerId } = parse(LegacyPlayerParams, req.params, 'path');
    const q = parse(LegacyKickQuery, req.query, 'query');
    await h.player(req, reply, principal, q.requesterId);
    return h.remove({ projectId: principal.projectId, config: q.name }, id, playerId, q);
  });

  registerLegacyMatchmaker(app, h);

  return app;
}

/** Starts the legacy lobby API on its own port; `close()` stops it (in-flight requests finish first). */
export async function startLegacyLobbyApi(o: LegacyLobbyApiOptions): Promise<LegacyLobbyApi> {
  const app = buildLegacyLobbyApp(o);
  await app.listen({ port: o.port, host: o.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  const host = o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, port, close: () => app.close() };
}

/**
 * The legacy lobby API beside a gateway Nest app: call before `app.listen` (the app's close then also
 * closes the legacy listener, on `app.close()` and on shutdown signals alike), and `start()` once the app
 * listens. A port that is not an integer ≥ 0 (LEGACY_PORT=off) leaves it off.
 */
export function legacyLobbyApiFor(app: NestFastifyApplication, listen: { port: number; host: string }): { start(): Promise<LegacyLobbyApi | null> } {
  let running: LegacyLobbyApi | null = null;
  let closed = false;
  app.getHttpAdapter().getInstance().addHook('onClose', async () => {
    closed = true;
    await running?.close();
  });
  return {
    async start() {
      if (closed || !Number.isInteger(listen.port) || listen.port < 0) return null;
      running ??= await startLegacyLobbyApi({ bus: app.get<Bus>(BUS), keys: app.get(KeyAuthenticator), identity: app.get(PlayerIdentity), limiter: app.get(RateLimits), ...listen });
      return running;
    },
  };
}

/** LEGACY_PORT, or a free port when the main app takes one (PORT=0) and LEGACY_PORT is not set. */
export function legacyPort(env: NodeJS.ProcessEnv, config: { port: number; legacyPort: number }): number {
  return env.LEGACY_PORT === undefined && config.port === 0 ? 0 : config.legacyPort;
}
