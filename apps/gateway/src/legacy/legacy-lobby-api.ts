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
import { RateLimits } from '../http/rate-limits';
import { installRequestHooks, listenerOptions } from '../http/request-hooks';
import { REQUEST_TIMEOUT_HEADER, retryAfterOn503 } from '../http/request-deadline';
import { LobbyStreams } from '../lobby-streams';
import { PlayerIdentity } from '../players';
import { registerLegacyEvents } from './legacy-events';
import type { LegacyLobbyApiOptions } from './legacy-options';
import { LEGACY_TOKEN_HEADER, LegacyLobbies } from './legacy-lobbies';

export type { LegacyLobbyApiOptions };
import { registerLegacyLobbyRoutes } from './legacy-lobby-routes';
import { registerLegacyMatchmaker } from './legacy-matchmaker-routes';

const log = logger('http');

const CORS_ALLOWED = `api-key, ${LEGACY_TOKEN_HEADER}, content-type, x-request-id, traceparent, ${REQUEST_TIMEOUT_HEADER}`;
const CORS_EXPOSED = 'x-request-id, traceparent, x-ratelimit-limit, x-ratelimit-remaining, retry-after';


export interface LegacyLobbyApi {
  /** Base URL of the listener ({legacy_base_url}). */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Methods of the registered routes by path pattern, for 405 with Allow on a known path. */
class RouteMethods {
  private readonly routes: { re: RegExp; methods: Set<string> }[] = [];

  add(url: string, method: string | string[]): void {
    const re = new RegExp(`^${url.replace(/:[^/]+/g, '[^/]+')}$`);
    let r = this.routes.find((x) => x.re.source === re.source);
    if (!r) this.routes.push((r = { re, methods: new Set() }));
    for (const m of [method].flat()) if (m !== 'HEAD' && m !== 'OPTIONS') r.methods.add(m);
  }

  of(url: string): string[] {
    const path = url.split('?')[0].replace(/\/+$/, '');
    return [...new Set(this.routes.filter((r) => r.re.test(path)).flatMap((r) => [...r.methods]))];
  }
}

/** The Fastify instance with the legacy routes (not listening yet). */
export function buildLegacyLobbyApp(o: LegacyLobbyApiOptions): FastifyInstance {
  const app = Fastify(listenerOptions());
  const h = new LegacyLobbies(o);
  const methods = new RouteMethods();
  app.addHook('onRoute', (r) => methods.add(r.url, r.method));
  // As on the main listener, with this API's methods and headers.
  installRequestHooks(app, { methods: 'GET, POST, PUT, DELETE', allowedHeaders: CORS_ALLOWED, exposedHeaders: CORS_EXPOSED });
  app.setErrorHandler((err, req, reply) => {
    const body = httpErrorBody(err);
    if (body.status >= 500 && body.status !== 503) log.error({ err, ...requestLogFields(req, reply) }, `${req.method} ${req.routeOptions.url ?? 'unmatched'} failed`);
    retryAfterOn503(reply, body.status);
    void reply.status(body.status).type('application/json').send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    const allowed = methods.of(req.url);
    if (allowed.length > 0) {
      void reply.status(405).header('allow', allowed.join(', ')).send({ error: `Method ${req.method} not allowed; use ${allowed.join(', ')}`, status: 405 });
      return;
    }
    void reply.status(404).send({ error: 'Not found', status: 404 });
  });

  // Each group of routes in its own file (the matchmaker's beside these).
  registerLegacyLobbyRoutes(app, h);
  registerLegacyMatchmaker(app, h);
  if (o.streams) registerLegacyEvents(app, h, o.streams);
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
      running ??= await startLegacyLobbyApi({ bus: app.get<Bus>(BUS), keys: app.get(KeyAuthenticator), identity: app.get(PlayerIdentity), limiter: app.get(RateLimits),
        streams: app.get(LobbyStreams), ...listen });
      return running;
    },
  };
}

/** LEGACY_PORT, or a free port when the main app takes one (PORT=0) and LEGACY_PORT is not set. */
export function legacyPort(env: NodeJS.ProcessEnv, config: { port: number; legacyPort: number }): number {
  return env.LEGACY_PORT === undefined && config.port === 0 ? 0 : config.legacyPort;
}
