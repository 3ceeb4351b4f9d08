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

export type StopReason = 'SHUTDOWN_SIGNAL' | 'PROCESS_EXITED' | 'TTL_EXPIRED' | 'STARTUP_FAILURE_TIMEOUT' | 'START_FAILED';
export const STOP_REASONS: readonly StopReason[] = ['SHUTDOWN_SIGNAL', 'PROCESS_EXITED', 'TTL_EXPIRED', 'STARTUP_FAILURE_TIMEOUT', 'START_FAILED'];

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
}

export type ServerStarted = DomainEvent<'ServerStarted', ServerLaunch & { at: string }>;
export type ServerRunning = DomainEvent<'ServerRunning', { serverId: string; at: string }>;
export type ServerStopped = DomainEvent<'ServerStopped', { serverId: string; reason: StopReason; exitCode: number | null; at: string }>;

export type ServerEvent = ServerStarted | ServerRunning | ServerStopped;
