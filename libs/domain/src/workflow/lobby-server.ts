// A lobby's game server moving its lobbies, per server: when the server runs, every lobby assigned to it
// is marked in_game with it; when it stops (any reason: START_FAILED, STARTUP_FAILURE_TIMEOUT, TTL, a
// crash past auto-restart, a manual stop), EVERY lobby assigned to it goes back to waiting, not just one.
// The link is the lobby's own LobbyServerAssigned; whichever comes first (the assignment or the server's
// ServerRunning / ServerStopped), the lobby ends where the server is. The lobby decider ignores a stop of
// a server it no longer uses (instanceId), so stale links are harmless.
//
// Integration-event gap: ServerRunning carries no ports (only serverId, at). The lobby wants the server
// as it runs, with its ports: this workflow folds them from ServerStarted / ServerRestarted, which it
// reads anyway, and its start time from the first ServerRunning of a machine (as the servers view's
// started_at). The lobby decider lays this report over the view it was assigned at launch (region,
// build, custom data), so no service asks the servers service for the running view.
import { LobbyCommand, LobbyEvent, LobbyServer } from '../lobby';
import { NetworkPort, ServerEvent } from '../server';
import { CommandIntent, Workflow } from './workflow';

export type LobbyServerEvent = LobbyEvent | ServerEvent;
export type LobbyServerIntent = CommandIntent<LobbyCommand>;

export interface LobbyServerState {
  serverId: string | null;
  projectId: string | null;
  status: 'none' | 'launching' | 'running' | 'stopped';
  networkPorts: NetworkPort[];
  /** The first ServerRunning of the current machine (a crash restart on it keeps it; a restart clears it). */
  startedAt?: string | null;
  /** ServerRunning events so far (a crash restart runs it again): part of the keys. */
  runs: number;
  /** Lobbies assigned to this server, in assignment order (since its last release to the pool). */
  lobbies: string[];
  /** Claims released back to the pool (a lease on a resettable game): part of the keys, as a pool server may serve again. */
  releases?: number;
  /** The lobbies the last release took the server from: each is told, as of a stop. */
  released?: string[];
}

/** The keys' generation suffix: none before a release (the keys stay what they were). */
const gen = (state: LobbyServerState) => (state.releases ? `:${state.releases}` : '');

/** The lobby's view of its running server (what the lobby decider's ServerRunning expects). */
function runningServer(state: LobbyServerState, serverId: string): LobbyServer {
  return { instance_id: serverId, status: 'running', network_ports: state.networkPorts, started_at: state.startedAt ?? null };
}

function toLobby(state: LobbyServerState, lobbyId: string, serverId: string, command: LobbyCommand, what: string): LobbyServerIntent {
  return { kind: 'command', target: { aggregate: 'lobby', id: lobbyId, projectId: state.projectId }, command, key: `lobby-server:${serverId}:${lobbyId}:${what}` };
}

const running = (state: LobbyServerState, lobbyId: string, serverId: string, now: string) =>
  toLobby(state, lobbyId, serverId, { type: 'ServerRunning', server: runningServer(state, serverId), now }, `running:${state.runs}${gen(state)}`);
const stopped = (state: LobbyServerState, lobbyId: string, serverId: string, now: string) =>
  toLobby(state, lobbyId, serverId, { type: 'ServerStopped', instanceId: serverId, now }, `stopped${gen(state)}`);

const IGNORED = new Set<string>(['ServerPoolClaimed', 'ServerCustomDataUpdated', 'ServerGameStatusReported']);

export const lobbyServerWorkflow: Workflow<LobbyServerEvent, LobbyServerState, LobbyServerIntent> = {
  name: 'lobby-server',
  categories: ['lobby', 'server'],
  initialState: { serverId: null, projectId: null, status: 'none', networkPorts: [], startedAt: null, runs: 0, lobbies: [] },

  route(event) {
    if (event.type === 'LobbyServerAssigned') return [event.data.server.instance_id];
    // A claim, new custom data or a game's status report change nothing here (not even a read).
    if (IGNORED.has(event.type)) return [];
    if ('serverId' in event.data) return [event.data.serverId];
    return [];
  },

  // A server's first event: a new server has no state to read (its lobby is assigned after it starts).
  startsOver: (event) => event.type === 'ServerStarted',

  evolve(state, event) {
    switch (event.type) {
      case 'ServerStarted':
        return { ...state, serverId: event.data.serverId, projectId: event.data.projectId, status: 'launching', networkPorts: event.data.networkPorts };
      case 'ServerRestarted':
        return { ...state, status: 'launching', networkPorts: event.data.networkPorts, startedAt: null };
      case 'ServerCrashed':
        return state.status === 'stopped' ? state : { ...state, status: 'launching' };
      case 'ServerRunning':
        return state.status === 'launching' ? { ...state, status: 'running', runs: state.runs + 1, startedAt: state.startedAt ?? event.data.at } : state;
      case 'ServerStopped':
        return { ...state, status: 'stopped' };
      case 'ServerPoolReleased':
        // The claim ended, the machine runs on in the pool: its lobbies are told, and a next claim starts afresh.
        return { ...state, lobbies: [], released: state.lobbies, releases: (state.releases ?? 0) + 1 };
      case 'LobbyServerAssigned': {
        const lobbyId = event.data.lobbyId;
        return state.lobbies.includes(lobbyId) ? state : { ...state, serverId: state.serverId ?? event.data.server.instance_id, lobbies: [...state.lobbies, lobbyId] };
      }
      default:
        return state;
    }
  },

  react(state, event) {
    switch (event.type) {
      case 'ServerRunning':
        // A late or repeated report (already stopped) moves no lobby.
        return state.status === 'running' ? state.lobbies.map((l) => running(state, l, event.data.serverId, event.data.at)) : [];
      case 'ServerStopped':
        return state.lobbies.map((l) => stopped(state, l, event.data.serverId, event.data.at));
      case 'ServerPoolReleased':
        return (state.released ?? []).map((l) => toLobby(state, l, event.data.serverId, { type: 'ServerStopped', instanceId: event.data.serverId, now: event.data.at }, `released:${state.releases}`));
      case 'LobbyServerAssigned': {
        // Assigned after the server already ran or stopped: the lobby catches up at once.
        const serverId = event.data.server.instance_id;
        if (state.status === 'running') return [running(state, event.data.lobbyId, serverId, event.data.at)];
        if (state.status === 'stopped') return [stopped(state, event.data.lobbyId, serverId, event.data.at)];
        return [];
      }
      default:
        return [];
    }
  },
};
