import { PoolConfig } from '../server/pool-plan';

// Project settings as the interface names them (snake_case on the wire).

export interface PortConfig {
  id: string;
  name: string;
  internal_port: number;
  protocol: 'udp' | 'tcp';
  tls_enabled: boolean;
}

export interface ProjectSettings {
  port_configs: PortConfig[];
  auth_config: { provider: string; [key: string]: unknown };
  environment_variables: Record<string, string>;
  pool_config: PoolConfig | null;
  lobby_configs: Record<string, unknown>[];
  client_key_server_control: boolean;
}

/** A new project's settings: one UDP and one TCP game port, so the sample game answers on both. */
export function defaultSettings(ids: { udpPortId: string; tcpPortId: string }): ProjectSettings {
  return {
    port_configs: [
      { id: ids.udpPortId, name: 'game', internal_port: 7777, protocol: 'udp', tls_enabled: false },
      { id: ids.tcpPortId, name: 'game-tcp', internal_port: 7778, protocol: 'tcp', tls_enabled: false },
    ],
    auth_config: { provider: 'none' },
    environment_variables: {},
    pool_config: null,
    lobby_configs: [],
    client_key_server_control: true,
  };
}

/** Each top-level field given replaces the stored one whole (decisions.md). */
export function applySettingsPatch(current: ProjectSettings, patch: Partial<ProjectSettings>): ProjectSettings {
  const next = { ...current };
  for (const key of Object.keys(patch) as (keyof ProjectSettings)[]) {
    if (patch[key] !== undefined) (next as Record<string, unknown>)[key] = patch[key];
  }
  return next;
}
