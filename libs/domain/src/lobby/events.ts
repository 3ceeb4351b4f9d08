import { DomainEvent } from '../kit';
import { LobbyDeleteReason, LobbyServer } from './state';

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
export type PlayerStateUpdated = DomainEvent<'PlayerStateUpdated', { lobbyId: string; playerId: string; state: Record<string, unknown>; at: string }>;
export interface LobbySettingsChanges {
  name?: string | null;
  maxPlayers?: number;
  isPrivate?: boolean;
  allowLateJoin?: boolean;
  region?: string;
  settings?: Record<string, unknown>;
  code?: string | null;
}
/** Only the fields that change; `settings` replaces the whole settings object. */
export type LobbySettingsUpdated = DomainEvent<'LobbySettingsUpdated', { lobbyId: string; by: string; changes: LobbySettingsChanges; at: string }>;
export type GameStarting = DomainEvent<'GameStarting', { lobbyId: string; by: string; at: string }>;
export type LobbyServerAssigned = DomainEvent<'LobbyServerAssigned', { lobbyId: string; server: LobbyServer; at: string }>;
export type GameStarted = DomainEvent<'GameStarted', { lobbyId: string; server?: LobbyServer; at: string }>;
/** `by`: the host who ended the match, null when the server stopped on its own. */
export type GameEnded = DomainEvent<'GameEnded', { lobbyId: string; reason: 'host' | 'server_stopped'; by: string | null; at: string }>;
export type LobbyDeleted = DomainEvent<'LobbyDeleted', { lobbyId: string; reason: LobbyDeleteReason; at: string }>;

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
  | GameStarted
  | GameEnded
  | LobbyDeleted;
