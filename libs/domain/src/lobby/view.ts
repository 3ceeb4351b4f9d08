import { notFound } from '../kit';
import { LobbyServer, LobbyState, LobbyStatus } from './state';

/** The v3 Lobby resource (camelCase, as in the interface). */
export interface LobbyView {
  id: string;
  code: string | null;
  config: string;
  /** The lobby's display name (null when none was given). Not in the interface's v3 table; the legacy API needs it. */
  name: string | null;
  status: LobbyStatus;
  host: string;
  maxPlayers: number;
  currentPlayers: number;
  region: string;
  isPrivate: boolean;
  allowLateJoin: boolean;
  settings: Record<string, unknown>;
  players: { id: string; state: Record<string, unknown>; isHost: boolean }[];
  server: LobbyServer | null;
  matchmaking: MatchmakingInfo | null;
  createdAt: string;
  updatedAt: string;
  /** Why the last search ended without a game; absent when it did not (or a new search started). */
  matchmakingError?: string;
}

export interface QueueStats { playersSearching: number; lobbiesInQueue: number; avgWaitSeconds: number }
export interface MatchmakingInfo {
  mode: string;
  startedAt: string;
  queueStats: QueueStats;
  confirmation: { deadline: string; confirmed: boolean } | null;
}

export const NO_QUEUE_STATS: QueueStats = { playersSearching: 0, lobbiesInQueue: 0, avgWaitSeconds: 0 };

/**
 * The Lobby JSON of a live lobby; a lobby that does not exist (or was deleted) is not found. `queueStats`:
 * the live figures of the lobby's queue, when the caller has them.
 */
export function lobbyView(state: LobbyState, queueStats: QueueStats = NO_QUEUE_STATS): LobbyView {
  if (state.status === 'none' || state.status === 'deleted') throw notFound('lobby');
  return {
    id: state.id,
    code: state.code,
    config: state.config,
    name: state.name,
    status: state.status,
    host: state.host,
    maxPlayers: state.maxPlayers,
    currentPlayers: state.players.length,
    region: state.region,
    isPrivate: state.isPrivate,
    allowLateJoin: state.allowLateJoin,
    settings: state.settings,
    players: state.players.map((p) => ({ id: p.id, state: p.state, isHost: p.id === state.host })),
    server: state.server,
    matchmaking: state.matchmaking
      ? { mode: state.matchmaking.mode, startedAt: state.matchmaking.startedAt, queueStats, confirmation: state.matchmaking.confirmation }
      : null,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    ...(state.matchmakingError ? { matchmakingError: state.matchmakingError } : {}),
  };
}
