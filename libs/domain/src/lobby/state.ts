import type { ServerSnapshot } from '../server/resource';
/** A member of a lobby, in join order. `state` is free-form per-player data (ready, team, role, mmr…). */
export interface LobbyPlayer {
  id: string;
  state: Record<string, unknown>;
  joinedAt: string;
  /** Last request of this member (heartbeats and open event streams are tracked by the service, not stored). */
  lastSeenAt: string;
}

/** The lobby's game server as the servers service reports it; opaque here apart from its id. */
/** The lobby's game server as its start or its running answered (a running report is merged over it). */
export type LobbyServer = ServerSnapshot;

export type HostLeaveBehavior = 'promote' | 'close';
export type LobbyDeleteReason = 'admin' | 'idle' | 'host_left' | 'empty';

/** v3 statuses a live lobby can be in. in_queue, match_found and matched belong to matchmaking. */
export type LobbyStatus = 'waiting' | 'in_queue' | 'match_found' | 'matched' | 'starting' | 'in_game';

export interface LobbyInfo {
  id: string;
  projectId: string;
  /** Lobby configuration name. */
  config: string;
  /** Invite code (public lobbies too); null when the config's invite codes are off. */
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
  /** The search, from start of matchmaking until the lobby leaves its match (decisions.md "Matchmaking"). */
  matchmaking: LobbyMatchmaking | null;
  /** Why the last search ended without a game (timeout, declined, a failed server start); cleared by the next start. */
  matchmakingError: string | null;
  /** Queue tickets so far: each change the matcher must see is a new ticket (a reservation holds only at its ticket). */
  tickets: number;
}

export interface LobbyMatchmaking {
  mode: string;
  /** The first queue time of this search (kept when a match falls through and the lobby is queued again). */
  startedAt: string;
  /** When the search times out (startedAt + the mode's timeout). */
  timeoutAt: string;
  /** The current ticket (LobbyInfo.tickets when it was issued). */
  ticket: number;
  /** The match holding the lobby: reserved (still in_queue), then match_found, matched, starting, in_game. */
  matchId: string | null;
  confirmation: { deadline: string; confirmed: boolean } | null;
}

/** What the matcher reads of a queued lobby: carried whole by every event that issues a ticket. */
export interface QueueTicket {
  projectId: string;
  config: string;
  mode: string;
  ticket: number;
  queuedAt: string;
  region: string;
  players: { id: string; state: Record<string, unknown> }[];
}

export type LiveLobbyState = LobbyInfo & { status: LobbyStatus };

export type LobbyState =
  | { status: 'none' }
  | LiveLobbyState
  | (LobbyInfo & { status: 'deleted'; deleteReason: LobbyDeleteReason });
