/** A member of a lobby, in join order. `state` is free-form per-player data (ready, team, role, mmr…). */
export interface LobbyPlayer {
  id: string;
  state: Record<string, unknown>;
  joinedAt: string;
  /** Last request of this member (heartbeats and open event streams are tracked by the service, not stored). */
  lastSeenAt: string;
}

/** The lobby's game server as the servers service reports it; opaque here apart from its id. */
export type LobbyServer = { instance_id: string } & Record<string, unknown>;

export type HostLeaveBehavior = 'promote' | 'close';
export type LobbyDeleteReason = 'admin' | 'idle' | 'host_left' | 'empty';

/** v3 statuses a live lobby can be in. in_queue, match_found and matched belong to matchmaking. */
export type LobbyStatus = 'waiting' | 'in_queue' | 'match_found' | 'matched' | 'starting' | 'in_game';

export interface LobbyInfo {
  id: string;
  projectId: string;
  /** Lobby configuration name. */
  config: string;
  /** Invite code: set for private lobbies, null for public ones. */
  code: string | null;
  host: string;
  name: string | null;
  maxPlayers: number;
  players: LobbyPlayer[];
  region: string;
  isPrivate: boolean;
  allowLateJoin: boolean;
  settings: Record<string, unknown>;
  server: LobbyServer | null;
  createdAt: string;
  /** Last change a member can see. */
  updatedAt: string;
  /** Last member request (the idle timeout counts from here). */
  lastActivityAt: string;
  /** Launches so far (GameStarting events): a launch's attempt number and its idempotency key. */
  launches: number;
}

export type LiveLobbyState = LobbyInfo & { status: LobbyStatus };

export type LobbyState =
  | { status: 'none' }
  | LiveLobbyState
  | (LobbyInfo & { status: 'deleted'; deleteReason: LobbyDeleteReason });
