// The lobby's side of matchmaking (decisions.md "Matchmaking"): the host queues the lobby, the matcher
// reserves it at the ticket it matched (the lobby-claim pattern: the reservation holds only if nothing
// changed since), the match forms (match_found, confirmed when the mode asks), and the match lets it go
// (back in the queue at its first queue time, or to waiting with an error). Every member change while
// queued issues a new ticket, which drops a reservation; a leave once a match is found declines it.
import { conflict, forbidden, invalid } from '../kit';
import { LobbyCommand } from './commands';
import { LobbyEvent } from './events';
import { evolve } from './evolve';
import { LiveLobbyState, LobbyMatchmaking, LobbyState, LobbyStatus, QueueTicket } from './state';

export type MatchmakingCommand = Extract<LobbyCommand, {
  type: 'StartMatchmaking' | 'CancelMatchmaking' | 'ReserveForMatch' | 'MatchFound' | 'MatchReady' | 'ConfirmMatch' | 'DeclineMatch' | 'ReleaseFromMatch' | 'QueueTimeout';
}>;

const MATCHMAKING_COMMANDS = new Set<string>(['StartMatchmaking', 'CancelMatchmaking', 'ReserveForMatch', 'MatchFound', 'MatchReady', 'ConfirmMatch', 'DeclineMatch', 'ReleaseFromMatch', 'QueueTimeout']);
export const isMatchmakingCommand = (c: LobbyCommand): c is MatchmakingCommand => MATCHMAKING_COMMANDS.has(c.type);

/** Statuses of a lobby searching or holding a match found (the roster frozen from match_found on). */
export const SEARCHING: ReadonlySet<LobbyStatus> = new Set(['in_queue', 'match_found', 'matched']);

/** The lobby's ticket `ticket` as the matcher reads it. */
export function queueTicket(lobby: LiveLobbyState, m: Pick<LobbyMatchmaking, 'mode' | 'startedAt'>, ticket: number): QueueTicket {
  return {
    projectId: lobby.projectId, config: lobby.config, mode: m.mode, ticket, queuedAt: m.startedAt, region: lobby.region,
    players: lobby.players.map((p) => ({ id: p.id, state: p.state })),
  };
}

const tickets = (lobby: LiveLobbyState) => lobby.tickets ?? 0;
const ended = (lobby: LiveLobbyState, reason: Extract<LobbyEvent, { type: 'MatchmakingEnded' }>['data']['reason'], error: string | null, at: string): LobbyEvent =>
  ({ type: 'MatchmakingEnded', data: { lobbyId: lobby.id, matchId: lobby.matchmaking?.matchId ?? null, reason, error, at } });

/** Decides the matchmaking commands; `live` and `member` check existence and membership (decide.ts). */
export function decideMatchmaking(
  command: MatchmakingCommand, state: LobbyState, live: (s: LobbyState) => LiveLobbyState, member: (s: LobbyState, playerId: string) => LiveLobbyState,
): LobbyEvent[] {
  const at = command.now;
  switch (command.type) {
    case 'StartMatchmaking': {
      const lobby = member(state, command.playerId);
      if (lobby.host !== command.playerId) throw forbidden('only the host can start matchmaking');
      if (lobby.status !== 'waiting') throw conflict(`lobby is ${lobby.status}; matchmaking starts from waiting`);
      if (lobby.players.length > command.maxPartySize) {
        throw invalid(`the lobby has ${lobby.players.length} players; mode ${command.mode} takes parties of at most ${command.maxPartySize}`, ['body', 'mode'], 'party_too_large');
      }
      const timeoutAt = new Date(Date.parse(at) + command.timeoutMs).toISOString();
      const queue = queueTicket(lobby, { mode: command.mode, startedAt: at }, tickets(lobby) + 1);
      return [{ type: 'MatchmakingStarted', data: { lobbyId: lobby.id, by: command.playerId, timeoutAt, queue, at } }];
    }
    case 'CancelMatchmaking': {
      const lobby = member(state, command.playerId);
      if (lobby.host !== command.playerId) throw forbidden('only the host can cancel matchmaking');
      if (!SEARCHING.has(lobby.status)) throw conflict(`lobby is ${lobby.status}, not searching`);
      return [ended(lobby, 'cancelled', null, at)];
    }
    case 'ReserveForMatch': {
      const lobby = live(state);
      const m = lobby.matchmaking;
      if (m?.matchId === command.matchId) return [];
      if (lobby.status !== 'in_queue' || !m) throw conflict(`lobby is ${lobby.status}, not in_queue`);
      if (m.matchId !== null) throw conflict(`lobby is held by match ${m.matchId}`);
      if (m.ticket !== command.ticket) throw conflict(`the lobby's ticket is ${m.ticket}, not ${command.ticket}`);
      return [{ type: 'LobbyReserved', data: { lobbyId: lobby.id, matchId: command.matchId, ticket: command.ticket, at } }];
    }
    case 'MatchFound': {
      const lobby = held(live(state), command.matchId);
      if (lobby.status !== 'in_queue') return []; // found already
      const { matchId, confirmationDeadline } = command;
      const found: LobbyEvent = { type: 'LobbyMatchFound', data: { lobbyId: lobby.id, matchId, confirmationDeadline, at } };
      return confirmationDeadline ? [found] : [found, { type: 'LobbyMatched', data: { lobbyId: lobby.id, matchId, at } }];
    }
    case 'MatchReady': {
      const lobby = held(live(state), command.matchId);
      if (lobby.status === 'in_queue') throw conflict('the match has not formed for this lobby yet');
      if (lobby.status !== 'match_found') return [];
      return [{ type: 'LobbyMatched', data: { lobbyId: lobby.id, matchId: command.matchId, at } }];
    }
    case 'ConfirmMatch': {
      const lobby = member(state, command.playerId);
      const confirmation = lobby.matchmaking?.confirmation;
      if (!confirmation || (lobby.status !== 'match_found' && lobby.status !== 'matched')) throw conflict(`lobby is ${lobby.status}; there is no match to confirm`);
      if (confirmation.confirmed) return [];
      if (lobby.status !== 'match_found' || at > confirmation.deadline) throw conflict('the confirmation deadline has passed');
      return [{ type: 'LobbyMatchConfirmed', data: { lobbyId: lobby.id, matchId: lobby.matchmaking!.matchId!, by: command.playerId, at } }];
    }
    case 'DeclineMatch': {
      // Any member; the match hears of it from the event (a lobby's cancel while confirming: it dissolves,
      // confirmed lobbies queued again) and this lobby is waiting with the error the others get too.
      const lobby = member(state, command.playerId);
      if (lobby.status !== 'match_found') throw conflict(`lobby is ${lobby.status}; there is no match pending to decline`);
      return [ended(lobby, 'cancelled', 'declined', at)];
    }
    case 'ReleaseFromMatch': {
      const lobby = live(state);
      const m = lobby.matchmaking;
      // A release by a match the lobby is no longer in (it left, was queued again, has a server) changes nothing.
      if (!m || m.matchId !== command.matchId || !SEARCHING.has(lobby.status)) return [];
      if (!command.requeue) return [ended(lobby, command.reason, command.error, at)];
      if (at >= m.timeoutAt) return [ended(lobby, 'timeout', 'timeout', at)];
      const queue = queueTicket(lobby, m, tickets(lobby) + 1);
      return [{ type: 'MatchmakingTicketChanged', data: { lobbyId: lobby.id, reason: 'released', matchId: command.matchId, queue, at } }];
    }
    case 'QueueTimeout': {
      const lobby = live(state);
      const m = lobby.matchmaking;
      // A reserved lobby is the match's to let go (a release past the timeout ends the search).
      if (lobby.status !== 'in_queue' || !m || m.startedAt !== command.startedAt || m.matchId !== null || at < m.timeoutAt) return [];
      return [ended(lobby, 'timeout', 'timeout', at)];
    }
  }
}

function held(lobby: LiveLobbyState, matchId: string): LiveLobbyState {
  if (lobby.matchmaking?.matchId !== matchId) throw conflict(`lobby is not held by match ${matchId}`);
  return lobby;
}

const MEMBER_CHANGES = new Set(['PlayerJoined', 'PlayerLeft', 'PlayerKicked', 'PlayerStateUpdated']);

/**
 * What a member change means for a search: while queued, a new ticket (dropping a reservation); once a
 * match is found, a departure declines it. A deleted lobby names its match, which it leaves.
 */
export function matchmakingFollowUp(before: LobbyState, events: LobbyEvent[]): LobbyEvent[] {
  if (before.status === 'none' || before.status === 'deleted' || !before.matchmaking || events.length === 0) return events;
  const m = before.matchmaking;
  const deleted = events.find((e) => e.type === 'LobbyDeleted');
  if (deleted) {
    return events.map((e) => (e.type === 'LobbyDeleted' ? { ...e, data: { ...e.data, matchId: m.matchId } } : e));
  }
  if (!events.some((e) => MEMBER_CHANGES.has(e.type))) return events;
  const at = events[events.length - 1].data.at;
  if (before.status === 'in_queue') {
    const after = events.reduce(evolve, before as LobbyState) as LiveLobbyState;
    const queue = queueTicket(after, m, tickets(before) + 1);
    return [...events, { type: 'MatchmakingTicketChanged', data: { lobbyId: before.id, reason: 'changed', matchId: m.matchId, queue, at } }];
  }
  const departed = events.some((e) => e.type === 'PlayerLeft' || e.type === 'PlayerKicked');
  if (departed && (before.status === 'match_found' || before.status === 'matched')) return [...events, ended(before, 'left', 'declined', at)];
  return events;
}
