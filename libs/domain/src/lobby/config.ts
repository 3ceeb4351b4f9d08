// Lobby configurations: `default` always exists; others come from the project's `lobby_configs`
// (validated by the gateway on POST /v3/projects/settings). Looked up by name or id.
import { notFound } from '../kit';
import { MatchmakingMode, resolveModes } from '../matchmaking/mode';
import { HostLeaveBehavior } from './state';
import type { ServiceType } from '../server/events';

export interface InviteCodeConfig { type: 'numeric' | 'alphanumeric'; length: number; prefix: string }

/** What a lobby's game server is started with (region: the lobby's). */
export interface LobbyServerSettings {
  version_tag: string;
  version?: number;
  compute_size: string;
  ttl?: number;
  startup_args?: string;
  environment_variables?: Record<string, string>;
  service_type?: ServiceType;
}

export interface LobbyConfig {
  name: string;
  maxPlayers: number;
  /** Seconds without member activity (request or open event stream) before the lobby is deleted. */
  timeout: number;
  heartbeat: boolean;
  /** Seconds a member may go without a heartbeat or an open stream when `heartbeat` is on. */
  heartbeatTimeout: number;
  hostLeaveBehavior: HostLeaveBehavior;
  /** null: invite codes off (every lobby's code is null). */
  inviteCodeConfig: InviteCodeConfig | null;
  serverSettings: LobbyServerSettings;
  /** `matchmaking.modes`, each with its defaults filled in (none: the config has no matchmaking). */
  modes: Record<string, MatchmakingMode>;
}

/** Seconds a lobby's or a match's server runs when the config's serverSettings set no ttl (no game left running forever). */
export const DEFAULT_LOBBY_SERVER_TTL = 3600;

export const DEFAULT_LOBBY_CONFIG: LobbyConfig = {
  name: 'default', maxPlayers: 8, timeout: 300, heartbeat: false, heartbeatTimeout: 30, hostLeaveBehavior: 'promote',
  inviteCodeConfig: { type: 'alphanumeric', length: 6, prefix: '' },
  serverSettings: { version_tag: 'default', compute_size: 'small' },
  modes: {},
};

type Raw = Record<string, unknown>;
const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export function resolveLobbyConfig(lobbyConfigs: Raw[] | undefined, nameOrId: string): LobbyConfig {
  const raw = (lobbyConfigs ?? []).find((c) => c.name === nameOrId) ?? (lobbyConfigs ?? []).find((c) => c.id !== undefined && c.id === nameOrId);
  if (!raw) {
    if (nameOrId === 'default') return DEFAULT_LOBBY_CONFIG;
    throw notFound(`lobby configuration ${nameOrId}`);
  }
  if (raw.enabled === false) throw notFound(`lobby configuration ${nameOrId} (disabled)`);
  const d = DEFAULT_LOBBY_CONFIG;
  const code = (raw.inviteCodeConfig ?? {}) as Raw;
  const defaultCode = d.inviteCodeConfig!;
  const server = (raw.serverSettings ?? {}) as Raw;
  return {
    name: typeof raw.name === 'string' ? raw.name : nameOrId,
    maxPlayers: num(raw.maxPlayers, d.maxPlayers),
    timeout: num(raw.timeout, d.timeout),
    heartbeat: raw.heartbeat === true,
    heartbeatTimeout: num(raw.heartbeatTimeout, d.heartbeatTimeout),
    hostLeaveBehavior: raw.hostLeaveBehavior === 'close' ? 'close' : 'promote',
    inviteCodeConfig: raw.inviteCodeConfig === null ? null : {
      type: code.type === 'numeric' ? 'numeric' : 'alphanumeric',
      length: num(code.length, defaultCode.length),
      prefix: typeof code.prefix === 'string' ? code.prefix : '',
    },
    serverSettings: { ...d.serverSettings, ...(server as Partial<LobbyServerSettings>) },
    modes: resolveModes(raw.matchmaking),
  };
}

