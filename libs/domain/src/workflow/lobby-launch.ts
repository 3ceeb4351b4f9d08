// The launch of a lobby's game server, per lobby, as a backstop: the lobbies service launches at once on a
// direct start (so the start answers with a refusal) and waits at most 5 s for the servers service. If the
// lobby is still starting without a server LOBBY_LAUNCH_CHECK_MS later, the process that took the start died
// or lost its answer: StartLobbyServer sends the launch again, keyed by lobby and attempt (the command id the
// direct start used, so the servers service answers the server it already started). A lobby still without a
// server at LOBBY_LAUNCH_TIMEOUT_MS goes back to waiting. Once a server is assigned, its own lifecycle
// decides (lobby-server.ts; the server's startup timeout stops a server that never runs). A server that
// arrived after the lobby moved on (LobbyServerUnneeded) is stopped here, by an intent.
import { DomainEvent } from '../kit';
import { LobbyCommand, LobbyEvent } from '../lobby';
import { timeAfter, CommandIntent, Intent, Workflow } from './workflow';

/** A lobby starting this long without a server has its launch sent again (well past the direct start's 5 s). */
export const LOBBY_LAUNCH_CHECK_MS = 15_000;
/** A lobby starting this long without a server goes back to waiting. */
export const LOBBY_LAUNCH_TIMEOUT_MS = 60_000;

/**
 * Start the lobby's server for this launch attempt (the dispatcher reads the lobby's project, config and
 * region from the lobby itself, so this workflow reads only the few events of a launch, never a join).
 */
export interface StartLobbyServer {
  type: 'StartLobbyServer';
  lobbyId: string;
  attempt: number;
  now: string;
}

/**
 * Stop the lobby's server: the host ended the match, the lobby was deleted while its game was starting or
 * running, or a server of its launch arrived after it moved on (issue 36: a stop sent once and dropped when the servers service did not answer left the game
 * running until its TTL). An intent, so the runner retries it until the servers service answers; a server
 * already stopped or gone is an answer. A matchmade lobby's server is the match's to stop.
 */
export interface StopLobbyServer {
  type: 'StopLobbyServer';
  lobbyId: string;
  serverId: string;
  now: string;
}

export type LobbyLaunchCheck = DomainEvent<'LobbyLaunchCheck', { lobbyId: string; attempt: number; at: string }>;
export type LobbyLaunchTimedOut = DomainEvent<'LobbyLaunchTimedOut', { lobbyId: string; attempt: number; at: string }>;
export type LobbyLaunchEvent = LobbyEvent | LobbyLaunchCheck | LobbyLaunchTimedOut;
export type LobbyLaunchIntent = Intent<StartLobbyServer | StopLobbyServer | LobbyCommand, LobbyLaunchCheck | LobbyLaunchTimedOut>;

export interface LobbyLaunchState {
  status: 'none' | 'waiting' | 'starting' | 'in_game';
  /** GameStarting events so far: the current launch's number (the lobby's own `launches`). */
  attempt: number;
  /** The server assigned in the current launch (after GameEnded/LobbyDeleted: the one to stop, if any). */
  serverId: string | null;
  /** The lobby is in a match (LobbyMatched): its server is the match's, not the lobby's to stop. */
  matched?: boolean;
}

/** The lobby events a launch is made of; the rest (joins, state, chat) is routed nowhere and costs nothing. */
const LAUNCH_EVENTS = new Set<string>(['GameStarting', 'LobbyServerAssigned', 'LobbyServerUnneeded', 'GameStarted', 'GameEnded', 'LobbyDeleted', 'LobbyMatched', 'LobbyLaunchCheck', 'LobbyLaunchTimedOut']);
const live = (state: LobbyLaunchState) => state.status === 'starting' || state.status === 'in_game';
const timerId = (lobbyId: string) => `lobby-launch:${lobbyId}`;
export const lobbyLaunchKey = (lobbyId: string, attempt: number) => `lobby-launch:${lobbyId}:${attempt}`;

/** Still in this launch, with no server assigned (a timer of an earlier launch, or a lobby that moved on, needs nothing). */
const waitingForServer = (state: LobbyLaunchState, attempt: number) => state.status === 'starting' && state.attempt === attempt && state.serverId === null;

export const lobbyLaunchWorkflow: Workflow<LobbyLaunchEvent, LobbyLaunchState, LobbyLaunchIntent> = {
  name: 'lobby-launch',
  categories: ['lobby'],
  initialState: { status: 'none', attempt: 0, serverId: null },

  route: (event) => (LAUNCH_EVENTS.has(event.type) ? [event.data.lobbyId] : []),

  evolve(state, event) {
    switch (event.type) {
      case 'GameStarting':
        return { status: 'starting', attempt: state.attempt + 1, serverId: null, matched: state.matched };
      case 'LobbyServerAssigned':
        return { ...state, serverId: event.data.server.instance_id };
      case 'GameStarted':
        return { ...state, status: 'in_game' };
      case 'LobbyMatched':
        return { ...state, matched: true };
      case 'GameEnded': {
        // The host's end of the lobby's own game keeps the server, for react to stop it; the game's own end needs no stop.
        const stop = event.data.reason === 'host' && !event.data.matchId && !state.matched && live(state);
        return { status: 'waiting', attempt: state.attempt, serverId: stop ? state.serverId : null, matched: false };
      }
      case 'LobbyDeleted': {
        const stop = !event.data.matchId && !state.matched && live(state);
        return { status: 'none', attempt: state.attempt, serverId: stop ? state.serverId : null, matched: false };
      }
      default:
        return state;
    }
  },

  react(state, event) {
    const lobbyId = event.data.lobbyId;
    switch (event.type) {
      case 'GameStarting': {
        const check: LobbyLaunchCheck = { type: 'LobbyLaunchCheck', data: { lobbyId, attempt: state.attempt, at: timeAfter(event.data.at, LOBBY_LAUNCH_CHECK_MS) } };
        return [{ kind: 'timer', id: timerId(lobbyId), at: check.data.at, then: check }];
      }
      case 'LobbyLaunchCheck': {
        if (!waitingForServer(state, event.data.attempt)) return [];
        const start: CommandIntent<StartLobbyServer> = {
          kind: 'command',
          target: { request: 'StartLobbyServer', projectId: null },
          command: { type: 'StartLobbyServer', lobbyId, attempt: state.attempt, now: event.data.at },
          key: lobbyLaunchKey(lobbyId, state.attempt),
        };
        const due = timeAfter(event.data.at, LOBBY_LAUNCH_TIMEOUT_MS - LOBBY_LAUNCH_CHECK_MS);
        const timeout: LobbyLaunchTimedOut = { type: 'LobbyLaunchTimedOut', data: { lobbyId, attempt: state.attempt, at: due } };
        return [start, { kind: 'timer', id: timerId(lobbyId), at: due, then: timeout }];
      }
      case 'LobbyServerAssigned':
      case 'GameStarted':
        return [{ kind: 'cancel-timer', id: timerId(lobbyId) }];
      case 'GameEnded':
      case 'LobbyDeleted': {
        const cancel: LobbyLaunchIntent = { kind: 'cancel-timer', id: timerId(lobbyId) };
        if (!state.serverId) return [cancel];
        const stop: CommandIntent<StopLobbyServer> = {
          kind: 'command',
          target: { request: 'StopLobbyServer', projectId: null },
          command: { type: 'StopLobbyServer', lobbyId, serverId: state.serverId, now: event.data.at },
          key: `${lobbyLaunchKey(lobbyId, state.attempt)}:stop`,
        };
        return [cancel, stop];
      }
      case 'LobbyServerUnneeded': {
        const serverId = event.data.server.instance_id;
        const stop: CommandIntent<StopLobbyServer> = {
          kind: 'command',
          target: { request: 'StopLobbyServer', projectId: null },
          command: { type: 'StopLobbyServer', lobbyId, serverId, now: event.data.at },
          key: `${lobbyLaunchKey(lobbyId, event.data.launch)}:unneeded:${serverId}`,
        };
        return [stop];
      }
      case 'LobbyLaunchTimedOut':
        // A timer of an earlier attempt, or the lobby moved on: nothing to do. A lobby deleted meanwhile
        // refuses the stop, which resolves the intent.
        if (!waitingForServer(state, event.data.attempt)) return [];
        // instanceId '' matches no server: if a server was assigned meanwhile (not yet seen here), the lobby keeps it.
        return [{
          kind: 'command',
          target: { aggregate: 'lobby', id: lobbyId, projectId: null },
          command: { type: 'ServerStopped', instanceId: '', now: event.data.at },
          key: `${lobbyLaunchKey(lobbyId, event.data.attempt)}:timed-out`,
        }];
      default:
        return [];
    }
  },
};
