import { invalid } from '../kit';
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

/** A settings patch as it arrives (checked, defaults not yet filled in). */
export type SettingsPatchInput = Omit<Partial<ProjectSettings>, 'port_configs' | 'pool_config'> & {
  port_configs?: (Omit<PortConfig, 'id' | 'tls_enabled'> & { id?: string; tls_enabled?: boolean })[];
  pool_config?: (Omit<PoolConfig, 'build_version' | 'compute_size'> & { build_version?: number | null; compute_size?: string }) | null;
};

/** The defaults of a patch filled in: new ports get an id (`newId`) and no TLS; a pool runs the latest build on `small`. */
export function completeSettingsPatch(patch: SettingsPatchInput, newId: () => string): Partial<ProjectSettings> {
  const { port_configs, pool_config, ...rest } = patch;
  const done: Partial<ProjectSettings> = { ...rest };
  if (port_configs) done.port_configs = port_configs.map((p) => ({ ...p, id: p.id ?? newId(), tls_enabled: p.tls_enabled ?? false }));
  if (pool_config !== undefined) {
    done.pool_config = pool_config && { ...pool_config, build_version: pool_config.build_version ?? null, compute_size: pool_config.compute_size ?? 'small' };
  }
  return done;
}

/** Each top-level field given replaces the stored one whole (decisions.md). */
export function applySettingsPatch(current: ProjectSettings, patch: Partial<ProjectSettings>): ProjectSettings {
  const next = { ...current };
  for (const key of Object.keys(patch) as (keyof ProjectSettings)[]) {
    if (patch[key] !== undefined) (next as Record<string, unknown>)[key] = patch[key];
  }
  return next;
}

/**
 * Every lobby config has an id (the interface lists one, as for port configs): the one given, else the id
 * of the stored config of the same name (a client that replaces the list without ids keeps them), else
 * the next of `newIds` (new ids arrive on the command). Two configs given the same id: 422.
 */
export function withLobbyConfigIds(stored: Record<string, unknown>[], configs: Record<string, unknown>[], newIds: readonly string[]): Record<string, unknown>[] {
  const byName = new Map(stored.filter((c) => typeof c.id === 'string').map((c) => [c.name, c.id as string]));
  const seen = new Set<string>();
  let next = 0;
  return configs.map((c, i) => {
    const given = typeof c.id === 'string' ? c.id : undefined;
    const id = given ?? byName.get(c.name) ?? newIds[next++];
    if (id === undefined) throw new Error('UpdateSettings: a new id per lobby config must come with the command');
    if (seen.has(id)) throw invalid(`lobby config id ${id} is used twice`, ['body', 'lobby_configs', i, 'id']);
    seen.add(id);
    return { ...c, id };
  });
}
