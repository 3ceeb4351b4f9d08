// The launch of a lobby's game server, per lobby. GameStarting asks for a server (one request per launch
// attempt, keyed by lobby and attempt, so a repeated dispatch is the same start) and sets a timer: a lobby
// still starting without a server when it fires goes back to waiting (the launch was lost or refused).
// Once a server is assigned, its own lifecycle decides (lobby-server.ts moves the lobby on its
// ServerRunning / ServerStopped; the server's startup timeout stops a server that never runs).
import { DomainEvent } from '../kit';
import { LobbyCommand, LobbyEvent } from '../lobby';
import { timeAfter, CommandIntent, Intent, Workflow } from './workflow';

/** A lobby starting this long without a server assigned goes back to waiting (the lobbies sweeper's START_ABANDONED_MS). */
export const LOBBY_LAUNCH_TIMEOUT_MS = 60_000;

/** What the dispatcher needs to start the lobby's server (the lobby config's serverSettings are read by it). */
export interface StartLobbyServer {
  type: 'StartLobbyServer';
  projectId: string;
  lobbyId: string;
  config: string;
  region: string;
  attempt: number;
  now: string;
}

export type LobbyLaunchTimedOut = DomainEvent<'LobbyLaunchTimedOut', { lobbyId: string; attempt: number; at: string }>;
export type LobbyLaunchEvent = LobbyEvent | LobbyLaunchTimedOut;
export type LobbyLaunchIntent = Intent<StartLobbyServer | LobbyCommand, LobbyLaunchTimedOut>;

export interface LobbyLaunchState {
  lobbyId: string | null;
  projectId: string | null;
  config: string | null;
  region: string | null;
  status: 'none' | 'waiting' | 'starting' | 'in_game' | 'deleted';
  /** GameStarting events so far: the current launch's number. */
  attempt: number;
  /** The server assigned in the current launch. */
  serverId: string | null;
}

const timerId = (lobbyId: string) => `lobby-launch:${lobbyId}`;
export const lobbyLaunchKey = (lobbyId: string, attempt: number) => `lobby-launch:${lobbyId}:${attempt}`;

export const lobbyLaunchWorkflow: Workflow<LobbyLaunchEvent, LobbyLaunchState, LobbyLaunchIntent> = {
  name: 'lobby-launch',
  categories: ['lobby'],
  initialState: { lobbyId: null, projectId: null, config: null, region: null, status: 'none', attempt: 0, serverId: null },

  route: (event) => [event.data.lobbyId],

  evolve(state, event) {
    switch (event.type) {
      case 'LobbyCreated': {
        const d = event.data;
        return { ...state, lobbyId: d.lobbyId, projectId: d.projectId, config: d.config, region: d.region, status: 'waiting' };
      }
      case 'LobbySettingsUpdated':
        return event.data.changes.region !== undefined ? { ...state, region: event.data.changes.region } : state;
      case 'GameStarting':
        return { ...state, status: 'starting', attempt: state.attempt + 1, serverId: null };
      case 'LobbyServerAssigned':
        return { ...state, serverId: event.data.server.instance_id };
      case 'GameStarted':
        return { ...state, status: 'in_game' };
      case 'GameEnded':
        return { ...state, status: 'waiting', serverId: null };
      case 'LobbyDeleted':
        return { ...state, status: 'deleted', serverId: null };
      default:
        return state;
    }
  },

  react(state, event) {
    const lobbyId = event.data.lobbyId;
    switch (event.type) {
      case 'GameStarting': {
        const start: CommandIntent<StartLobbyServer> = {
          kind: 'command',
          target: { request: 'StartLobbyServer', projectId: state.projectId },
          command: {
            type: 'StartLobbyServer', projectId: state.projectId ?? '', lobbyId, config: state.config ?? '', region: state.region ?? '',
            attempt: state.attempt, now: event.data.at,
          },
          key: lobbyLaunchKey(lobbyId, state.attempt),
        };
        const timeout: LobbyLaunchTimedOut = { type: 'LobbyLaunchTimedOut', data: { lobbyId, attempt: state.attempt, at: timeAfter(event.data.at, LOBBY_LAUNCH_TIMEOUT_MS) } };
        return [start, { kind: 'timer', id: timerId(lobbyId), at: timeout.data.at, then: timeout }];
      }
      case 'LobbyServerAssigned':
      case 'GameStarted':
      case 'GameEnded':
      case 'LobbyDeleted':
        return [{ kind: 'cancel-timer', id: timerId(lobbyId) }];
      case 'LobbyLaunchTimedOut':
        // A timer of an earlier attempt, or the lobby moved on: nothing to do.
        if (state.status !== 'starting' || state.attempt !== event.data.attempt || state.serverId !== null) return [];
        // instanceId '' matches no server: if a server was assigned meanwhile (not yet seen here), the lobby keeps it.
        return [{
          kind: 'command',
          target: { aggregate: 'lobby', id: lobbyId, projectId: state.projectId },
          command: { type: 'ServerStopped', instanceId: '', now: event.data.at },
          key: `${lobbyLaunchKey(lobbyId, event.data.attempt)}:timed-out`,
        }];
      default:
        return [];
    }
  },
};
