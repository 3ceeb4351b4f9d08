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
  matchmaking: null;
  createdAt: string;
  updatedAt: string;
}

/** The Lobby JSON of a live lobby; a lobby that does not exist (or was deleted) is not found. */
export function lobbyView(state: LobbyState): LobbyView {
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
    matchmaking: null,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}
