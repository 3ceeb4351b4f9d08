import type { Plan } from './shared';

export interface NetworkPortView { name: string; internal_port: number; external_port: number; protocol: 'udp' | 'tcp'; host: string; tls_enabled: boolean }

/** The Server resource exactly as the interface names it. */
export interface ServerView {
  instance_id: string;
  name: string;
  status: 'launching' | 'running' | 'stopped';
  network_ports: NetworkPortView[];
  startup_args: string | null;
  service_type: 'match_based' | 'persistent_world';
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
}

export interface StartServerBody {
  name: string;
  region: string;
  version_tag?: string;
  version?: number | null;
  compute_size?: string;
  ttl?: number | null;
  startup_args?: string | null;
  custom_data?: Record<string, unknown> | null;
  service_type?: 'match_based' | 'persistent_world';
  auto_restart?: boolean;
  match_id?: string;
  environment_variables?: Record<string, string>;
  port_configs?: { name: string; internal_port: number; protocol: 'udp' | 'tcp'; tls_enabled?: boolean }[];
  use_pool?: boolean;
}
export interface StartServerRequest { projectId: string; plan: Plan; body: StartServerBody }
export interface GetServerRequest {
  projectId: string;
  serverId: string;
  /** Answer only once the read model shows every server event committed before the request (service-to-service checks). */
  fresh?: boolean;
}
export interface ListServersRequest { projectId: string; status?: string; region?: string; version_tag?: string; match_id?: string; limit?: number; next_token?: string }
export interface ServerList { servers: ServerView[]; next_token: string | null }
export interface StopServerRequest { projectId: string; serverId: string; reason?: string }
export interface UsesBuildRequest { projectId: string; buildId: string }

export interface RestartServerBody {
  name?: string;
  startup_args?: string | null;
  version_tag?: string;
  version?: number | null;
  ttl?: number | null;
  auto_restart?: boolean;
  custom_data?: Record<string, unknown> | null;
  match_id?: string;
  environment_variables?: Record<string, string>;
  port_configs?: { name: string; internal_port: number; protocol: 'udp' | 'tcp'; tls_enabled?: boolean }[];
}
export interface RestartServerRequest { projectId: string; serverId: string; body: RestartServerBody }
export interface UpdateServerRequest { projectId: string; serverId: string; customData: Record<string, unknown> }
