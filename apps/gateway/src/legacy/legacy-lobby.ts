// The legacy lobby shape: the same lobbies as v3 (one store), viewed the way the older lobby API showed them.
// Pure functions over the v3 Lobby JSON (libs/domain/src/lobby/view.ts), so they are unit-tested alone.

import { DEFAULT_LOBBY_CONFIG, LobbyView, resolveLobbyConfig, ServerSnapshot } from '@spawnpoint/domain';

export type LegacyStatus = 'waiting' | 'in_game' | 'finished';

export interface LegacyLobby {
  id: string;
  name: string;
  host: string;
  maxPlayers: number;
  currentPlayers: number;
  region: string;
  status: LegacyStatus;
  isPrivate: boolean;
  useInviteCode: boolean;
  inviteCode: string | null;
  allowLateJoin: boolean;
  settings: Record<string, unknown>;
  players: string[];
  lobbyStateRealTime: Record<string, Record<string, unknown>>;
  gameServer: ServerSnapshot | null;
  timeout: number;
  createdAt: string;
  updatedAt: string;
  /** Beside the published fields (the Unity SDK's Lobby reads them): the search's mode and start, null when not searching. */
  matchmakingMode: string | null;
  matchmakingStartedAt: string | null;
}

/** Lobby idle timeout (seconds) of the default configuration, reported when a configuration sets none. */
export const DEFAULT_LEGACY_TIMEOUT = DEFAULT_LOBBY_CONFIG.timeout;

/** waiting→waiting, in_game→in_game, completed/deleted→finished, every other v3 status→waiting (docs/api.md). */
export function legacyStatus(v3Status: string): LegacyStatus {
  switch (v3Status) {
    case 'in_game': return 'in_game';
    case 'completed':
    case 'deleted': return 'finished';
    default: return 'waiting';
  }
}

export function toLegacyLobby(lobby: LobbyView, timeout: number = DEFAULT_LEGACY_TIMEOUT): LegacyLobby {
  const lobbyStateRealTime: Record<string, Record<string, unknown>> = {};
  for (const p of lobby.players) lobbyStateRealTime[p.id] = p.state;
  return {
    id: lobby.id,
    // The published Lobby always has a name (a string): a lobby created without one shows "".
    name: lobby.name ?? '',
    host: lobby.host,
    maxPlayers: lobby.maxPlayers,
    currentPlayers: lobby.currentPlayers,
    region: lobby.region,
    status: legacyStatus(lobby.status),
    isPrivate: lobby.isPrivate,
    // The lobby's invite code, whatever its privacy (null only when the configuration turns codes off).
    useInviteCode: lobby.code !== null,
    inviteCode: lobby.code,
    allowLateJoin: lobby.allowLateJoin,
    settings: lobby.settings,
    players: lobby.players.map((p) => p.id),
    lobbyStateRealTime,
    gameServer: lobby.server ?? null,
    timeout,
    createdAt: lobby.createdAt,
    updatedAt: lobby.updatedAt,
    matchmakingMode: lobby.matchmaking?.mode ?? null,
    matchmakingStartedAt: lobby.matchmaking?.startedAt ?? null,
  };
}

/** The last known lobby of one that no longer exists (the host finished it): status finished, no game server. */
export function finishedLobby(last: LegacyLobby, at: string): LegacyLobby {
  return { ...last, status: 'finished', gameServer: null, matchmakingMode: null, matchmakingStartedAt: null, updatedAt: at };
}

/** The idle timeout of a lobby configuration, found by name or id in the project's lobby_configs (as the lobbies service finds it). */
export function configTimeout(lobbyConfigs: unknown, nameOrId: string): number {
  try {
    return resolveLobbyConfig(Array.isArray(lobbyConfigs) ? lobbyConfigs : [], nameOrId).timeout;
  } catch {
    return DEFAULT_LEGACY_TIMEOUT; // gone since the lobby's request was served
  }
}
