// The Server resource as the interface names it (GET /v3/servers/{id}): the one definition. proto's
// ServerView (the HTTP and bus contract, and through it the SDK's Server) implements it; a lobby's and a
// match's server are snapshots of it.
import type { NetworkPort, ServiceType } from './events';

export type ServerStatus = 'launching' | 'running' | 'stopped';

/**
 * A server as another aggregate holds it (a lobby's, a match's): the resource as a start or a running report
 * answered, at least its id (events recorded before snapshots were kept carry only the id).
 */
export type ServerSnapshot = Pick<ServerResource, 'instance_id'> & Partial<ServerResource>;

/** What the game last reported with its server token (ADR-0016); cleared when its machine restarts. */
export interface GameStatusResource {
  players: number | null;
  health: 'healthy' | 'degraded' | 'unhealthy' | null;
  message: string | null;
  reported_at: string;
}

export interface ServerResource {
  instance_id: string;
  name: string;
  status: ServerStatus;
  network_ports: NetworkPort[];
  startup_args: string | null;
  service_type: ServiceType;
  compute_size: string;
  region: string;
  version_tag: string;
  version: number | null;
  started_at: string | null;
  stopped_at: string | null;
  auto_restart: boolean;
  custom_data: Record<string, unknown> | null;
  ttl: number | null;
  is_pool_server: boolean;
  pool_claimed_at: string | null;
  match_id: string;
  created_at: string;
  updated_at: string;
  /** ports: running once every port is bound; sdk: once the game reports ready (POST /v3/game/ready). */
  readiness: 'ports' | 'sdk';
  game: GameStatusResource | null;
}
