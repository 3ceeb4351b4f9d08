import { DomainEvent } from '../kit';
import { LobbyDeleteReason, LobbyServer, QueueTicket } from './state';

export type LobbyCreated = DomainEvent<'LobbyCreated', {
  lobbyId: string;
  projectId: string;
  config: string;
  code: string | null;
  hostId: string;
  name: string | null;
  maxPlayers: number;
  region: string;
  isPrivate: boolean;
  allowLateJoin: boolean;
  settings: Record<string, unknown>;
  hostState: Record<string, unknown>;
  at: string;
}>;
export type PlayerJoined = DomainEvent<'PlayerJoined', { lobbyId: string; playerId: string; state: Record<string, unknown>; at: string }>;
/** `reason`: the player left ('left') or was removed for missing heartbeats ('timeout'). */
export type PlayerLeft = DomainEvent<'PlayerLeft', { lobbyId: string; playerId: string; reason: 'left' | 'timeout'; at: string }>;
export type PlayerKicked = DomainEvent<'PlayerKicked', { lobbyId: string; playerId: string; by: string; at: string }>;
/** `reason`: the host handed over ('transferred') or left and the oldest remaining player took over ('promoted'). */
export type HostChanged = DomainEvent<'HostChanged', { lobbyId: string; from: string; to: string; reason: 'transferred' | 'promoted'; at: string }>;
/** `state`: the patch, merged into the player's state (existing keys kept unless overwritten). */
/** `by`: the host, when it changed another member's state (absent: the player itself). */
export type PlayerStateUpdated = DomainEvent<'PlayerStateUpdated', { lobbyId: string; playerId: string; by?: string; state: Record<string, unknown>; at: string }>;
export interface LobbySettingsChanges {
  name?: string | null;
  maxPlayers?: number;
  isPrivate?: boolean;
  allowLateJoin?: boolean;
  region?: string;
  settings?: Record<string, unknown>;
  /** Only in events stored when privacy still set and cleared the code; no longer decided. */
  code?: string | null;
}
/** Only the fields that change; `settings` replaces the whole settings object. */
export type LobbySettingsUpdated = DomainEvent<'LobbySettingsUpdated', { lobbyId: string; by: string; changes: LobbySettingsChanges; at: string }>;
export type GameStarting = DomainEvent<'GameStarting', { lobbyId: string; by: string; at: string }>;
export type LobbyServerAssigned = DomainEvent<'LobbyServerAssigned', { lobbyId: string; server: LobbyServer; at: string }>;
/**
 * A server the lobby's own launch `launch` started arrived after the lobby moved on (deleted, ended, or in a
 * later launch with another server): nobody uses it. Recorded, so the lobby-launch workflow stops it through
 * an intent the runner retries (a stop sent from the request that found out was lost with its process).
 */
export type LobbyServerUnneeded = DomainEvent<'LobbyServerUnneeded', { lobbyId: string; server: LobbyServer; launch: number; at: string }>;
export type GameStarted = DomainEvent<'GameStarted', { lobbyId: string; server?: LobbyServer; at: string }>;
/** `by`: the host who ended the match, null when the server stopped on its own. `matchId`: the match the lobby leaves. */
export type GameEnded = DomainEvent<'GameEnded', { lobbyId: string; reason: 'host' | 'server_stopped'; by: string | null; matchId?: string | null; at: string }>;
/** `matchId`: the match the lobby was in (it leaves it). */
export type LobbyDeleted = DomainEvent<'LobbyDeleted', { lobbyId: string; reason: LobbyDeleteReason; matchId?: string | null; at: string }>;

// Matchmaking (decisions.md "Matchmaking"). Every event that issues a ticket carries it whole (`queue`), so
// the matcher's queue is built from these events alone.
export type MatchmakingStarted = DomainEvent<'MatchmakingStarted', { lobbyId: string; by: string; timeoutAt: string; queue: QueueTicket; at: string }>;
/**
 * A new ticket for a queued lobby: `changed` after a member change (a reservation it held, `matchId`, is
 * dropped), `released` when its match fell through (queued again at its first queue time).
 */
export type MatchmakingTicketChanged = DomainEvent<'MatchmakingTicketChanged', { lobbyId: string; reason: 'changed' | 'released'; matchId: string | null; queue: QueueTicket; at: string }>;
/** Held for a match being formed, at this ticket; still in_queue. */
export type LobbyReserved = DomainEvent<'LobbyReserved', { lobbyId: string; matchId: string; ticket: number; at: string }>;
/** The match formed: match_found (with the deadline when the mode asks every lobby to confirm). */
export type LobbyMatchFound = DomainEvent<'LobbyMatchFound', { lobbyId: string; matchId: string; confirmationDeadline: string | null; at: string }>;
export type LobbyMatchConfirmed = DomainEvent<'LobbyMatchConfirmed', { lobbyId: string; matchId: string; by: string; at: string }>;
export type LobbyMatched = DomainEvent<'LobbyMatched', { lobbyId: string; matchId: string; at: string }>;
export type MatchmakingEndReason = 'cancelled' | 'timeout' | 'declined' | 'confirmation_timeout' | 'failed' | 'left';
/** The search ended without a game: waiting again, `error` as matchmakingError (null for the lobby's own cancel). */
export type MatchmakingEnded = DomainEvent<'MatchmakingEnded', { lobbyId: string; matchId: string | null; reason: MatchmakingEndReason; error: string | null; at: string }>;

export type LobbyEvent =
  | LobbyCreated
  | PlayerJoined
  | PlayerLeft
  | PlayerKicked
  | HostChanged
  | PlayerStateUpdated
  | LobbySettingsUpdated
  | GameStarting
  | LobbyServerAssigned
  | LobbyServerUnneeded
  | GameStarted
  | GameEnded
  | LobbyDeleted
  | MatchmakingStarted
  | MatchmakingTicketChanged
  | LobbyReserved
  | LobbyMatchFound
  | LobbyMatchConfirmed
  | LobbyMatched
  | MatchmakingEnded;
