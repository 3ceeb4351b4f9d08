// A match from proposal to its end, per match, in the matchmaking service (decisions.md "Matchmaking").
// No multi-stream transaction: each lobby is reserved on its own stream at the ticket the matcher read
// (ReserveMatchLobby: the dispatcher asks the lobbies service, and tells the match the lobby's answer in the
// same intent); the match forms when all hold, asking for its server in that decision when no confirmation
// is needed (or in the one that takes the last confirmation). Then every lobby is told (match_found;
// matched at once, or once all confirmed), a server is started (pool first; one per attempt, keyed by
// match and attempt, so a retried start never makes a second server; a failed one is tried again by the
// decider that records the failure), and each
// lobby gets it (starting; the lobby-server workflow takes them to in_game and, when the server stops,
// back to waiting). A lobby that drops out on its own (cancel, a new ticket, a leave, deletion, the end
// of its game) is told to the match, which aborts, dissolves or lets it leave; the last one out of a
// game stops the server. A match that falls through releases its lobbies: back in the queue at their
// first queue time, or to waiting with the reason.
import { DomainEvent } from '../kit';
import { LobbyCommand, LobbyEvent } from '../lobby';
import { MatchCommand, MatchEvent } from '../matchmaking/match';
import { CommandIntent, Intent, timeAfter, Workflow } from './workflow';
import type { ServerSnapshot } from '../server/resource';

/**
 * Reserve the lobby for the match at its ticket, and tell the match the answer (ReserveLobby, or
 * RefuseReservation for a refusal) in the same intent: a dispatch cut short between the two is sent again.
 */
export interface ReserveMatchLobby { type: 'ReserveMatchLobby'; matchId: string; lobbyId: string; ticket: number; now: string }
/** Start the match's server (attempt `attempt`); the dispatcher reports AssignServer or FailServerStart to the match. */
export interface StartMatchServer { type: 'StartMatchServer'; matchId: string; attempt: number; now: string }
/** Stop the server of a match no lobby is left in (best effort: it may have stopped already). */
export interface StopMatchServer { type: 'StopMatchServer'; matchId: string; serverId: string; now: string }

/**
 * Stop every server of the match but its own (none once it is over): a start that answered after its match
 * fell through, where the dispatcher that sent it died before it could stop it (its retry finds the match
 * moved on and starts nothing), or a start still running in the servers service when the match fell through.
 */
export interface StopStrayMatchServers { type: 'StopStrayMatchServers'; matchId: string; now: string }

/** Show the game its roster now (custom_data.match of its server), after a lobby left or a fill joined. */
export interface UpdateMatchRoster { type: 'UpdateMatchRoster'; matchId: string; version: number; now: string }

export type MatchRequest = ReserveMatchLobby | StartMatchServer | StopMatchServer | StopStrayMatchServers | UpdateMatchRoster;
/**
 * The confirmation deadline's timer, CONFIRMATION_GRACE_MS after it: a member's confirm accepted by its
 * lobby at the deadline is still on its way to the match then (the match counts a confirm by the time its
 * lobby took it, so it is not lost to the timer).
 */
export const CONFIRMATION_GRACE_MS = 2_000;
export type MatchConfirmationDue = DomainEvent<'MatchConfirmationDue', { matchId: string; at: string }>;
/**
 * Deadlines that keep a match from being stuck whatever happens to an intent (a service down past the
 * runner's retries, a bug that parks an intent): a match still reserving its lobbies this long after its
 * proposal is aborted (the lobbies reserved go back to the queue at their first queue time; a reservation
 * landing later is let go at once); a server start not answered this long after it was requested counts
 * as a failed attempt (the next attempt starts, the third fails the match; a late answer's server is
 * stopped by the dispatcher, since the match no longer waits for it). Normal formation takes milliseconds
 * and a start's answer (not the game's readiness) well under a second, so neither fires unless something
 * is wrong.
 */
export const FORMATION_DEADLINE_MS = 30_000;
export const SERVER_START_DEADLINE_MS = 60_000;
export type MatchFormationDue = DomainEvent<'MatchFormationDue', { matchId: string; at: string }>;
export type MatchServerStartDue = DomainEvent<'MatchServerStartDue', { matchId: string; attempt: number; at: string }>;
/**
 * Once a match that asked for a server fell through (or got the server of a later attempt), its stray servers
 * are stopped twice: at once, and STRAY_SWEEP_MS later, by when a start the servers service was still running
 * has answered (a start's answer takes well under a second).
 */
export const STRAY_SWEEP_MS = 15_000;
export type MatchStraySweepDue = DomainEvent<'MatchStraySweepDue', { matchId: string; at: string }>;
type MatchDue = MatchConfirmationDue | MatchFormationDue | MatchServerStartDue | MatchStraySweepDue;
export type MatchFormationEvent = MatchEvent | MatchDue | LobbyEvent;
export type MatchFormationIntent = Intent<MatchCommand | LobbyCommand | MatchRequest, MatchDue>;

export interface MatchFormationState {
  projectId: string | null;
  lobbies: string[];
  /** The match's status as its events say (the Match decider's own statuses). */
  status: 'none' | 'proposed' | 'confirming' | 'confirmed' | 'server_requested' | 'assigned' | 'over';
  /** The server of the match, as the start answered it (what each lobby is given). */
  server: ServerSnapshot | null;
  /** Roster changes so far (lobbies left, fills joined): the key of each roster update. */
  rosterChanges?: number;
  /** The last server start asked for (0 or absent: none); a start may have made a server the match never got. */
  serverAttempts?: number;
  /**
   * A server start whose outcome the match never heard (timed out, or still in flight when the match fell
   * through) may have made a server: only then are stray servers looked for. A start the servers service
   * refused made none. Absent in a state stored before it was kept: taken as true.
   */
  startsUnknown?: boolean;
}

/** The error of a start no answer came for in time (SERVER_START_DEADLINE_MS). */
export const SERVER_START_TIMEOUT = 'server_start_timeout';

/** Lobby events that say the lobby left its match on its own; the match decides what that means. */
function dropped(event: LobbyEvent): string | null {
  switch (event.type) {
    case 'MatchmakingTicketChanged':
      return event.data.reason === 'changed' ? 'ticket_changed' : null;
    case 'MatchmakingEnded':
      return event.data.reason === 'cancelled' || event.data.reason === 'left' || event.data.reason === 'timeout' ? event.data.reason : null;
    case 'LobbyDeleted':
      return 'deleted';
    case 'GameEnded':
      return 'game_ended';
    default:
      return null;
  }
}

const matchOf = (event: LobbyEvent): string | null => {
  const d = event.data as { matchId?: string | null };
  return typeof d.matchId === 'string' ? d.matchId : null;
};

const MATCH_EVENTS = new Set<string>([
  'MatchProposed', 'MatchLobbyReserved', 'MatchFormed', 'MatchAborted', 'MatchLobbyConfirmed', 'MatchConfirmed', 'MatchDissolved', 'MatchServerRequested',
  'MatchServerStartFailed', 'MatchFailed', 'MatchServerAssigned', 'MatchRunning', 'MatchLobbyLeft', 'MatchCompleted', 'MatchConfirmationDue',
  'MatchFillProposed', 'MatchFilled', 'MatchFillAborted', 'MatchReservationReturned', 'MatchBackfillAccepting', 'MatchFormationDue', 'MatchServerStartDue',
  'MatchStraySweepDue',
]);
const isMatchEvent = (e: MatchFormationEvent): e is MatchEvent | MatchDue => MATCH_EVENTS.has(e.type);

const formationTimer = (matchId: string) => `match-formation:${matchId}`;
const serverTimer = (matchId: string) => `match-server:${matchId}`;
const confirmationTimer = (matchId: string) => `match-confirmation:${matchId}`;
const strayTimer = (matchId: string) => `match-strays:${matchId}`;
const cancel = (id: string) => ({ kind: 'cancel-timer' as const, id });

const toMatch = (matchId: string, command: MatchCommand, key: string): CommandIntent<MatchCommand> =>
  ({ kind: 'command', target: { aggregate: 'match', id: matchId, projectId: null }, command, key: `match:${matchId}:${key}` });
const lobbyKey = (matchId: string, lobbyId: string, key: string) => `match:${matchId}:${lobbyId}:${key}`;
const toLobby = (state: MatchFormationState, matchId: string, lobbyId: string, command: LobbyCommand, key: string): CommandIntent<LobbyCommand> =>
  ({ kind: 'command', target: { aggregate: 'lobby', id: lobbyId, projectId: state.projectId }, command, key: lobbyKey(matchId, lobbyId, key) });
const request = (matchId: string, command: MatchRequest, key: string): CommandIntent<MatchRequest> =>
  ({ kind: 'command', target: { request: command.type, projectId: null }, command, key: `match:${matchId}:${key}` });

/**
 * RequestServer, for an event whose own decision did not ask for the server already (one stored before the
 * Match decider did: serverRequested absent), so a match in flight across the upgrade still gets it.
 */
const requestServer = (event: { data: { serverRequested?: boolean } }, matchId: string, at: string, attempt: number): CommandIntent<MatchCommand>[] =>
  (event.data.serverRequested ? [] : [toMatch(matchId, { type: 'RequestServer', now: at }, `server:${attempt}`)]);

/** A lobby's MatchFound and the key it is sent with (the dispatcher that forms a match sends the same: MatchIntents). */
export const matchFound = (matchId: string, confirmationDeadline: string | null, now: string): LobbyCommand => ({ type: 'MatchFound', matchId, confirmationDeadline, now });
export const matchFoundKey = (matchId: string, lobbyId: string) => lobbyKey(matchId, lobbyId, 'found');

const stopStrays = (matchId: string, at: string, key: string) => request(matchId, { type: 'StopStrayMatchServers', matchId, now: at }, key);

/**
 * Stop the match's stray servers now and once more later (see STRAY_SWEEP_MS); nothing if it never asked for
 * one, or if every start it asked for was answered (a refusal made no server; an assigned one is its own).
 */
function sweepStrays(state: MatchFormationState, matchId: string, at: string): MatchFormationIntent[] {
  if (!state.serverAttempts || state.startsUnknown === false) return [];
  const due: MatchStraySweepDue = { type: 'MatchStraySweepDue', data: { matchId, at: timeAfter(at, STRAY_SWEEP_MS) } };
  return [stopStrays(matchId, at, 'strays'), { kind: 'timer', id: strayTimer(matchId), at: due.data.at, then: due }];
}

/** The roster update after a change (keyed by the change's number, so each is sent once). */
function rosterUpdate(state: MatchFormationState, matchId: string, at: string): CommandIntent<MatchRequest> | null {
  if (state.status === 'over') return null;
  const version = state.rosterChanges ?? 0;
  return request(matchId, { type: 'UpdateMatchRoster', matchId, version, now: at }, `roster:${version}`);
}

export const matchFormationWorkflow: Workflow<MatchFormationEvent, MatchFormationState, MatchFormationIntent> = {
  name: 'match-formation',
  categories: ['match', 'lobby'],
  initialState: { projectId: null, lobbies: [], status: 'none', server: null },

  route(event) {
    if (isMatchEvent(event)) return [event.data.matchId];
    const lobbyEvent = event as LobbyEvent;
    const matchId = matchOf(lobbyEvent);
    if (!matchId) return [];
    // LobbyReserved is not routed: the dispatcher that reserved the lobby told the match (ReserveMatchLobby).
    return lobbyEvent.type === 'LobbyMatchConfirmed' || dropped(lobbyEvent) ? [matchId] : [];
  },

  // A match's first event (everything else of the match, its lobbies' included, follows from it).
  startsOver: (event) => event.type === 'MatchProposed',

  evolve(state, event) {
    switch (event.type) {
      case 'MatchProposed':
        return { ...state, projectId: event.data.projectId, lobbies: event.data.lobbies.map((l) => l.lobbyId), status: 'proposed' };
      case 'MatchFormed':
        return { ...state, status: event.data.confirmationDeadline ? 'confirming' : 'confirmed' };
      case 'MatchConfirmed':
        return { ...state, status: 'confirmed' };
      case 'MatchServerStartFailed':
        return { ...state, status: 'confirmed', startsUnknown: (state.startsUnknown ?? true) || event.data.error === SERVER_START_TIMEOUT };
      case 'MatchServerRequested':
        return { ...state, status: 'server_requested', serverAttempts: event.data.attempt, startsUnknown: state.startsUnknown ?? (event.data.attempt > 1) };
      case 'MatchServerAssigned':
        return { ...state, status: 'assigned', server: event.data.server ?? { instance_id: event.data.serverId } };
      case 'MatchFailed': // the last attempt's failure (its start in flight until then)
        return { ...state, status: 'over', startsUnknown: (state.startsUnknown ?? true) || event.data.error === SERVER_START_TIMEOUT };
      case 'MatchAborted':
      case 'MatchDissolved':
      case 'MatchCompleted':
        // fell through with a start in flight: it may still make a server
        return { ...state, status: 'over', ...(state.status === 'server_requested' ? { startsUnknown: true } : {}) };
      case 'MatchFilled':
        return { ...state, lobbies: [...state.lobbies, event.data.lobbyId], rosterChanges: (state.rosterChanges ?? 0) + 1 };
      case 'MatchLobbyLeft':
        return { ...state, rosterChanges: (state.rosterChanges ?? 0) + 1 };
      default:
        return state;
    }
  },

  react(state, event) {
    const at = event.data.at;
    if (!isMatchEvent(event)) {
      const lobby = event as LobbyEvent;
      const matchId = matchOf(lobby)!;
      const lobbyId = lobby.data.lobbyId;
      if (lobby.type === 'LobbyMatchConfirmed') return [toMatch(matchId, { type: 'ConfirmLobby', lobbyId, now: at }, `confirmed:${lobbyId}`)];
      if (state.status === 'over' || state.status === 'none') return [];
      return [toMatch(matchId, { type: 'DropLobby', lobbyId, reason: dropped(lobby)!, now: at }, `dropped:${lobbyId}:${lobby.type}`)];
    }
    const matchId = event.data.matchId;
    switch (event.type) {
      case 'MatchProposed': {
        const due: MatchFormationDue = { type: 'MatchFormationDue', data: { matchId, at: timeAfter(at, FORMATION_DEADLINE_MS) } };
        return [
          ...event.data.lobbies.map((l) => request(matchId, { type: 'ReserveMatchLobby', matchId, lobbyId: l.lobbyId, ticket: l.ticket, now: at }, `reserve:${l.lobbyId}`)),
          { kind: 'timer', id: formationTimer(matchId), at: due.data.at, then: due },
        ];
      }
      case 'MatchFormationDue':
        return state.status === 'proposed' ? [toMatch(matchId, { type: 'AbortMatch', reason: 'formation_timeout', now: at }, 'formation-timeout')] : [];
      case 'MatchFormed': {
        const deadline = event.data.confirmationDeadline;
        // Told already by the dispatcher whose reservation formed it (lobbiesTold), in that same intent.
        const found = event.data.lobbiesTold ? [] : state.lobbies.map((l) => toLobby(state, matchId, l, matchFound(matchId, deadline, at), 'found'));
        if (!deadline) return [cancel(formationTimer(matchId)), ...found, ...requestServer(event, matchId, at, 1)];
        const due: MatchConfirmationDue = { type: 'MatchConfirmationDue', data: { matchId, at: timeAfter(deadline, CONFIRMATION_GRACE_MS) } };
        return [cancel(formationTimer(matchId)), ...found, { kind: 'timer', id: confirmationTimer(matchId), at: due.data.at, then: due }];
      }
      case 'MatchConfirmationDue':
        return state.status === 'confirming' ? [toMatch(matchId, { type: 'ExpireConfirmation', now: at }, 'expire')] : [];
      case 'MatchServerStartDue':
        // The decider ignores it unless that attempt is still the one in flight.
        return state.status === 'server_requested'
          ? [toMatch(matchId, { type: 'FailServerStart', attempt: event.data.attempt, error: SERVER_START_TIMEOUT, now: at }, `start-timeout:${event.data.attempt}`)]
          : [];
      case 'MatchConfirmed':
        return [
          cancel(confirmationTimer(matchId)),
          ...state.lobbies.map((l) => toLobby(state, matchId, l, { type: 'MatchReady', matchId, now: at }, 'ready')),
          ...requestServer(event, matchId, at, 1),
        ];
      case 'MatchServerRequested': {
        const { attempt } = event.data;
        const due: MatchServerStartDue = { type: 'MatchServerStartDue', data: { matchId, attempt, at: timeAfter(at, SERVER_START_DEADLINE_MS) } };
        return [
          request(matchId, { type: 'StartMatchServer', matchId, attempt, now: at }, `start:${attempt}`),
          { kind: 'timer', id: serverTimer(matchId), at: due.data.at, then: due },
        ];
      }
      case 'MatchServerStartFailed':
        return [cancel(serverTimer(matchId)), ...requestServer(event, matchId, at, event.data.attempt + 1)];
      case 'MatchServerAssigned':
        return [
          cancel(serverTimer(matchId)),
          ...state.lobbies.map((l) => toLobby(state, matchId, l, { type: 'ServerAssigned', server: state.server ?? { instance_id: event.data.serverId }, now: at }, 'server')),
          // an earlier attempt timed out: its start may still have made a server
          ...((state.serverAttempts ?? 0) > 1 ? sweepStrays(state, matchId, at) : []),
        ];
      case 'MatchAborted':
        return [
          cancel(formationTimer(matchId)),
          cancel(serverTimer(matchId)),
          ...event.data.release.map((l) => toLobby(state, matchId, l, { type: 'ReleaseFromMatch', matchId, requeue: true, reason: 'declined', error: null, now: at }, 'release')),
          ...sweepStrays(state, matchId, at),
        ];
      case 'MatchStraySweepDue':
        return [stopStrays(matchId, at, 'strays:late')];
      case 'MatchDissolved':
        return [
          ...event.data.requeue.map((l) => toLobby(state, matchId, l, { type: 'ReleaseFromMatch', matchId, requeue: true, reason: event.data.reason, error: null, now: at }, 'release')),
          ...event.data.release.map((l) => toLobby(state, matchId, l, { type: 'ReleaseFromMatch', matchId, requeue: false, reason: event.data.reason, error: event.data.reason, now: at }, 'release')),
        ];
      case 'MatchFailed':
        return [
          cancel(serverTimer(matchId)),
          ...event.data.lobbies.map((l) => toLobby(state, matchId, l, { type: 'ReleaseFromMatch', matchId, requeue: false, reason: 'failed', error: event.data.error, now: at }, 'release')),
          ...sweepStrays(state, matchId, at),
        ];
      case 'MatchCompleted':
        return event.data.stopServer ? [request(matchId, { type: 'StopMatchServer', matchId, serverId: event.data.serverId, now: at }, 'stop')] : [];
      case 'MatchReservationReturned':
        return [toLobby(state, matchId, event.data.lobbyId, { type: 'ReleaseFromMatch', matchId, requeue: true, reason: 'declined', error: null, now: at }, 'release')];
      case 'MatchFillProposed': {
        const l = event.data.lobby;
        return [request(matchId, { type: 'ReserveMatchLobby', matchId, lobbyId: l.lobbyId, ticket: l.ticket, now: at }, `fill:${l.lobbyId}:${l.ticket}:reserve`)];
      }
      case 'MatchFilled': {
        // Straight into the game: found (and matched) and given the match's server, which already runs.
        const l = event.data.lobbyId;
        const roster = rosterUpdate(state, matchId, at);
        return [
          toLobby(state, matchId, l, matchFound(matchId, null, at), 'found'),
          toLobby(state, matchId, l, { type: 'ServerAssigned', server: state.server ?? { instance_id: event.data.serverId }, now: at }, 'server'),
          ...(roster ? [roster] : []),
        ];
      }
      case 'MatchLobbyLeft': {
        const roster = rosterUpdate(state, matchId, at);
        return roster ? [roster] : [];
      }
      default:
        return [];
    }
  },
};
