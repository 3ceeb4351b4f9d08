// Wire shapes shared by several services (kept free of the domain package so any client can use them).
export type Plan = 'free' | 'pro';
export interface RateLimits { read_per_second: number; write_per_second: number; player_per_second: number }
export interface PortConfig { id: string; name: string; internal_port: number; protocol: 'udp' | 'tcp'; tls_enabled: boolean }
export interface ProjectSettings {
  port_configs: PortConfig[];
  auth_config: { provider: string; [key: string]: unknown };
  environment_variables: Record<string, string>;
  pool_config: Record<string, unknown> | null;
  lobby_configs: Record<string, unknown>[];
  client_key_server_control: boolean;
}
