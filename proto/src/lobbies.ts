// Lobbies (v3): requests the gateway sends the lobbies service. The Lobby reply is the v3 Lobby JSON.

export interface CreateLobbyBody {
  name?: string | null;
  maxPlayers?: number;
  region?: string;
  isPrivate?: boolean;
  allowLateJoin?: boolean;
  settings?: Record<string, unknown>;
  state?: Record<string, unknown>;
}

/** A player's request on one lobby configuration of a project. */
export interface PlayerLobbyRequest { projectId: string; config: string; playerId: string }
export interface CreateLobbyRequest extends PlayerLobbyRequest { body: CreateLobbyBody }
/** Exactly one of lobbyId and code. */
export interface JoinLobbyRequest extends PlayerLobbyRequest { lobbyId?: string; code?: string; state?: Record<string, unknown> }
export interface UpdatePlayerStateRequest extends PlayerLobbyRequest { state: Record<string, unknown> }
export interface AdminLobbyRequest { projectId: string; config: string; lobbyId: string }

export interface LeftLobby { status: 'left'; lobbyId: string }
export interface DeletedLobby { status: 'lobby_deleted'; id: string }
