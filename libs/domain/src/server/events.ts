import { DomainEvent } from '../kit';

export interface NetworkPort {
  name: string;
  internal_port: number;
  external_port: number;
  protocol: 'udp' | 'tcp';
  host: string;
  tls_enabled: boolean;
}

export type ServiceType = 'match_based' | 'persistent_world';

/**
 * MACHINE_LOST: the servers service restarted (after a crash) and found the server's machine gone.
 * CLAIM_LEASE_EXPIRED: a claimed pool server had no player within its pool's claim lease (never a caller's reason).
 */
export type StopReason = 'SHUTDOWN_SIGNAL' | 'PROCESS_EXITED' | 'TTL_EXPIRED' | 'STARTUP_FAILURE_TIMEOUT' | 'START_FAILED' | 'MACHINE_LOST' | 'CLAIM_LEASE_EXPIRED';
export const STOP_REASONS: readonly StopReason[] = ['SHUTDOWN_SIGNAL', 'PROCESS_EXITED', 'TTL_EXPIRED', 'STARTUP_FAILURE_TIMEOUT', 'START_FAILED', 'MACHINE_LOST'];

/** Everything a server was started with: the machine spec is rebuilt from this alone. */
export interface ServerLaunch {
  serverId: string;
  projectId: string;
  name: string;
  region: string;
  computeSize: string;
  versionTag: string;
  version: number | null;
  buildId: string | null;
  networkPorts: NetworkPort[];
  startupArgs: string | null;
  serviceType: ServiceType;
  autoRestart: boolean;
  customData: Record<string, unknown> | null;
  ttl: number | null;
  matchId: string;
  environmentVariables: Record<string, string>;
  isPoolServer: boolean;
  /** sha256 of the machine's SPAWNPOINT_SERVER_TOKEN (ADR-0016); absent on servers started before it existed. */
  tokenHash?: string;
  /** `sdk`: running only once the game reports ready; `ports` (absent): once every port is bound. */
  readiness?: Readiness;
}

export type Readiness = 'ports' | 'sdk';
export type GameHealth = 'healthy' | 'degraded' | 'unhealthy';
/** What the game last reported through its token: players and health (ADR-0016). */
export interface GameStatus {
  players: number | null;
  health: GameHealth | null;
  message: string | null;
  reportedAt: string;
  /** The game resets itself when its claim is released (it reads its own server): a lease returns it to the pool. */
  resettable?: boolean;
}

export type ServerStarted = DomainEvent<'ServerStarted', ServerLaunch & { at: string }>;
export type ServerRunning = DomainEvent<'ServerRunning', { serverId: string; at: string }>;
export type ServerStopped = DomainEvent<'ServerStopped', { serverId: string; reason: StopReason; exitCode: number | null; at: string }>;

/** What a restart may change; anything omitted keeps its value. */
export type RestartOverrides = Partial<Pick<ServerLaunch,
  'name' | 'startupArgs' | 'versionTag' | 'ttl' | 'autoRestart' | 'customData' | 'matchId' | 'environmentVariables'>>;

/** A new machine for the same server: new ports, possibly another build; started_at is set again when it runs. */
export type ServerRestarted = DomainEvent<'ServerRestarted', RestartOverrides & {
  serverId: string;
  /** The new machine's token hash: a restart renews the token (ADR-0016). */
  tokenHash?: string;
  networkPorts: NetworkPort[];
  buildId: string | null;
  version: number | null;
  /** A crash restart on another replica (ADR-0021): the restart count goes on; a manual restart resets it. */
  restarts?: number;
  at: string;
}>;
export type ServerCustomDataUpdated = DomainEvent<'ServerCustomDataUpdated', { serverId: string; customData: Record<string, unknown> | null; at: string }>;
/** The game crashed and auto_restart starts it again on the same machine and ports. */
export type ServerCrashed = DomainEvent<'ServerCrashed', { serverId: string; exitCode: number | null; attempt: number; at: string }>;
/** A ready pool server handed to a caller, with the caller's name, data, ttl and match id. */
export type ServerPoolClaimed = DomainEvent<'ServerPoolClaimed', {
  serverId: string;
  name: string;
  customData: Record<string, unknown> | null;
  ttl: number | null;
  matchId: string;
  /** The claiming start's command id: a retry of that start answers this server, not a second claim. */
  startKey?: string;
  /** The pool's claim lease: with no player reported within it, the server is stopped (server-lifecycle). */
  leaseSeconds?: number;
  at: string;
}>;

/** The game reported its player count and/or health with its server token. */
export type ServerGameStatusReported = DomainEvent<'ServerGameStatusReported', {
  serverId: string;
  players: number | null;
  health: GameHealth | null;
  message: string | null;
  /** Absent: as before (not said, or false). */
  resettable?: boolean;
  at: string;
}>;

/**
 * A claimed pool server's claim ends and the server is ready in the pool again (its lease expired and its
 * game resets itself): the name, custom data, ttl and match of the claim go; `matchId` is a new one.
 */
export type ServerPoolReleased = DomainEvent<'ServerPoolReleased', { serverId: string; name: string; matchId: string; reason: 'CLAIM_LEASE_EXPIRED'; at: string }>;

export type ServerEvent =
  | ServerStarted | ServerRunning | ServerStopped | ServerRestarted | ServerCustomDataUpdated | ServerCrashed | ServerPoolClaimed
  | ServerGameStatusReported | ServerPoolReleased;

/** Auto-restart gives up after this many restarts: the next crash stops the server. */
export const MAX_AUTO_RESTARTS = 10;
