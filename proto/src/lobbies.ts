// Lobbies (v3 and legacy): requests the gateway sends the lobbies service. The Lobby reply is the v3 Lobby JSON.
import type { LobbySettingsChanges } from '@spawnpoint/domain';

export interface CreateLobbyBody {
  name?: string | null;
  maxPlayers?: number;
  region?: string;
  isPrivate?: boolean;
  allowLateJoin?: boolean;
  settings?: Record<string, unknown>;
  state?: Record<string, unknown>;
}

/** The host's changes; the invite code of a lobby turning private is the service's to generate. */
export type LobbySettingsBody = Omit<LobbySettingsChanges, 'code'>;

/**
 * A player's request on one lobby configuration of a project. `lobbyId` (legacy API, which addresses
 * lobbies by id): the lobby the player must be a member of; without it, the player's lobby of the config.
 */
export interface PlayerLobbyRequest { projectId: string; config: string; playerId: string; lobbyId?: string }
export interface CreateLobbyRequest extends PlayerLobbyRequest { body: CreateLobbyBody }
/** Exactly one of lobbyId and code. */
export interface JoinLobbyRequest extends PlayerLobbyRequest { lobbyId?: string; code?: string; state?: Record<string, unknown> }
export interface UpdatePlayerStateRequest extends PlayerLobbyRequest { state: Record<string, unknown> }
export interface UpdateLobbySettingsRequest extends PlayerLobbyRequest { changes: LobbySettingsBody }
export interface TargetPlayerRequest extends PlayerLobbyRequest { targetId: string }
export interface AdminLobbyRequest { projectId: string; config: string; lobbyId: string }
/** `includePrivate`: the legacy list shows private lobbies unless asked for public ones only. */
export interface BrowseLobbiesRequest {
  projectId: string; config: string; region?: string; status?: string; limit?: number; next_token?: string; includePrivate?: boolean;
}
export interface LobbyPage<L = unknown> { lobbies: L[]; next_token: string | null }

export interface LeftLobby { status: 'left'; lobbyId: string }
export interface DeletedLobby { status: 'lobby_deleted'; id: string }

/** One server-sent event: `id` is `<lobbyId>:<revision>` of the lobby stream. */
export interface LobbyStreamEvent { id: string; event: 'connected' | 'lobby_updated' | 'lobby_deleted' | 'queue_stats' | 'match_found'; data: unknown }

/** Opening an event stream: what the player missed since `lastEventId`, then the current lobby. */
export interface OpenLobbyStreamRequest extends PlayerLobbyRequest { lastEventId?: string }
export interface OpenedLobbyStream {
  /** Missed events in order (empty without a usable lastEventId). */
  replay: LobbyStreamEvent[];
  /** The player's lobby now and its revision; null when the replay ended the stream (deleted, removed). */
  lobbyId: string | null;
  revision: number;
  lobby: unknown | null;
}

/**
 * Broadcast on `lobbies.updates` after every change (ephemeral; a missed one is replayed from the event
 * store on reconnect). `removed`: players no longer in the lobby after this change — their streams get
 * this update and then end.
 */
export interface LobbyUpdate {
  projectId: string;
  config: string;
  lobbyId: string;
  revision: number;
  kind: 'updated' | 'deleted';
  lobby: unknown | null;
  reason?: string;
  removed: string[];
}

/** Broadcast on `lobbies.presence`: players with an open event stream (or a heartbeat) just now. */
export interface LobbyPresence { entries: { projectId: string; lobbyId: string; playerId: string }[] }
