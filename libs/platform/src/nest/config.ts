// Every setting comes from the environment; docs/operations.md lists them.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DEFAULT_DISPATCH_CONCURRENCY } from '../workflow-runner/workflow-runner';

export interface PlatformConfig {
  mode: 'standalone' | 'distributed';
  /** Where game servers run: local processes, or one Pod each. */
  runtime: 'process' | 'kubernetes';
  databaseUrl: string;
  /**
   * Connections each of a service's two main PostgreSQL pools (event store, read models) may open
   * (SPAWNPOINT_DB_POOL_SIZE, default 10). Replicas × services × pools must stay under the server's
   * max_connections: a managed database's limit is often 100.
   */
  dbPoolSize: number;
  /**
   * EVENTSTORE_URL: the services' event store is EventStoreDB at this connection string (streams,
   * subscriptions, outbox relays); unset: PostgreSQL on databaseUrl. Read models, their checkpoints and
   * parked events stay in PostgreSQL either way (ADR-0009).
   */
  eventStoreUrl: string | null;
  natsUrl: string;
  /**
   * How long and how much the JetStream event stream keeps (SPAWNPOINT_EVENTS_MAX_AGE_HOURS, default 168;
   * SPAWNPOINT_EVENTS_MAX_BYTES, default none: -1). A consumer away longer than that misses events.
   */
  eventRetention: { maxAgeMs: number; maxBytes: number };
  dataDir: string;
  port: number;
  legacyPort: number;
  host: string;
  /** Base URL clients use to reach the gateway (upload URLs are built on it). */
  publicUrl: string;
  adminToken: string | null;
  devServerKey: string | null;
  devClientKey: string | null;
  portRange: [number, number];
  /** Where the process runtime notes the host ports it reserved, shared by every replica on the host (SPAWNPOINT_PORT_LOCK_DIR). */
  portLockDir: string | null;
  tcpHost: string;
  udpHost: string;
  startupTimeoutMs: number;
  /** How often the lobbies service looks for idle lobbies and silent members. */
  lobbySweepMs: number;
  /** How often the active matcher runs a matching step over every queue (SPAWNPOINT_MATCH_TICK_MS). */
  matchTickMs: number;
  /** How often a gateway reports its open lobby event streams (they count as heartbeats). */
  lobbyPresenceMs: number;
  /** Keep-alive `ping` on lobby event streams. */
  lobbyPingMs: number;
  /** `queue_stats` on the event streams of lobbies in matchmaking. */
  lobbyQueueStatsMs: number;
  /**
   * The active matcher's queue figures broadcast (matchmaking.queueStats), at most this far apart (and at least
   * as often as lobbyQueueStatsMs): pools sized by demand hear of a forming match from it (ADR-0025). The
   * streams push their own `queue_stats` every lobbyQueueStatsMs from the last figures, so this costs them nothing.
   */
  queueStatsBroadcastMs: number;
  /** An upload PUT that receives no data this long is cut and its partial file removed. */
  uploadIdleMs: number;
  /**
   * HMAC key of signed build artifact URLs (SPAWNPOINT_ARTIFACT_SECRET). Unset: random per process, which
   * only works when one process both signs and serves them (standalone); distributed mode must set the same
   * value on the gateway and the servers service.
   */
  artifactSecret: string;
  /** Base URL of the artifact URLs handed to game pods (SPAWNPOINT_ARTIFACT_BASE_URL, default publicUrl). */
  artifactBaseUrl: string;
  /**
   * Intents each workflow sends side by side, per instance in order (SPAWNPOINT_WORKFLOW_DISPATCH_CONCURRENCY,
   * default 64): under a burst of matches the outbox waits on these slots (ADR-0010).
   */
  workflowDispatchConcurrency?: number;
  /** SPAWNPOINT_RATE_LIMITS: gateway counters in memory (`local`, standalone's default) or shared by replicas (`shared`). */
  rateLimits?: 'local' | 'shared';
}

/** A positive number from the environment, or the default; anything else is refused at start. */
function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, mode: PlatformConfig['mode'] = 'distributed'): PlatformConfig {
  const port = Number(env.PORT ?? 8080);
  const host = env.HOST ?? '0.0.0.0';
  const range = (env.SPAWNPOINT_PORT_RANGE ?? '7000-7999').split('-').map(Number) as [number, number];
  const runtime = env.RUNTIME ?? 'process';
  const publicUrl = (env.SPAWNPOINT_PUBLIC_URL ?? `http://127.0.0.1:${port}`).replace(/\/$/, '');
  if (runtime !== 'process' && runtime !== 'kubernetes') throw new Error(`RUNTIME must be process or kubernetes, not "${runtime}"`);
  const rateLimits = env.SPAWNPOINT_RATE_LIMITS ?? (mode === 'standalone' ? 'local' : 'shared');
  if (rateLimits !== 'local' && rateLimits !== 'shared') throw new Error(`SPAWNPOINT_RATE_LIMITS must be local or shared, not "${rateLimits}"`);
  return {
    mode,
    runtime,
    databaseUrl: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/spawnpoint',
    dbPoolSize: Math.ceil(positive(env, 'SPAWNPOINT_DB_POOL_SIZE', 10)),
    eventStoreUrl: env.EVENTSTORE_URL || null,
    natsUrl: env.NATS_URL ?? 'nats://127.0.0.1:4222',
    eventRetention: {
      maxAgeMs: positive(env, 'SPAWNPOINT_EVENTS_MAX_AGE_HOURS', 168) * 3600_000,
      maxBytes: env.SPAWNPOINT_EVENTS_MAX_BYTES ? positive(env, 'SPAWNPOINT_EVENTS_MAX_BYTES', -1) : -1,
    },
    dataDir: path.resolve(env.SPAWNPOINT_DATA_DIR ?? '.spawnpoint'),
    port,
    legacyPort: Number(env.LEGACY_PORT ?? 8081),
    host,
    publicUrl,
    adminToken: env.SPAWNPOINT_ADMIN_TOKEN || null,
    devServerKey: env.SPAWNPOINT_DEV_SERVER_KEY || null,
    devClientKey: env.SPAWNPOINT_DEV_CLIENT_KEY || null,
    portRange: range,
    portLockDir: env.SPAWNPOINT_PORT_LOCK_DIR || null,
    tcpHost: env.SPAWNPOINT_TCP_HOST ?? '127.0.0.1',
    udpHost: env.SPAWNPOINT_UDP_HOST ?? '127.0.0.1',
    startupTimeoutMs: Number(env.SPAWNPOINT_STARTUP_TIMEOUT_MS ?? 120_000),
    lobbySweepMs: Number(env.SPAWNPOINT_LOBBY_SWEEP_MS ?? 1_000),
    matchTickMs: Number(env.SPAWNPOINT_MATCH_TICK_MS ?? 250),
    lobbyPresenceMs: Number(env.SPAWNPOINT_LOBBY_PRESENCE_MS ?? 2_000),
    lobbyPingMs: Number(env.SPAWNPOINT_LOBBY_PING_MS ?? 30_000),
    lobbyQueueStatsMs: Number(env.SPAWNPOINT_LOBBY_QUEUE_STATS_MS ?? 10_000),
    queueStatsBroadcastMs: Number(env.SPAWNPOINT_QUEUE_STATS_BROADCAST_MS ?? 2_000),
    uploadIdleMs: Number(env.SPAWNPOINT_UPLOAD_IDLE_MS ?? 60_000),
    artifactSecret: env.SPAWNPOINT_ARTIFACT_SECRET || randomBytes(32).toString('hex'),
    artifactBaseUrl: (env.SPAWNPOINT_ARTIFACT_BASE_URL || publicUrl).replace(/\/$/, ''),
    rateLimits,
    workflowDispatchConcurrency: positive(env, 'SPAWNPOINT_WORKFLOW_DISPATCH_CONCURRENCY', DEFAULT_DISPATCH_CONCURRENCY),
  };
}
