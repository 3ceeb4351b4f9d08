import { conflict, DomainError, forbidden, invalid, notFound } from '../kit';
import { LobbyCommand } from './commands';
import { LobbyEvent, LobbySettingsChanges } from './events';
import { decideMatchmaking, isMatchmakingCommand, matchmakingFollowUp, SEARCHING } from './matchmaking';
import { HostLeaveBehavior, LiveLobbyState, LobbyState } from './state';

export const MIN_LOBBY_PLAYERS = 1;
export const MAX_LOBBY_PLAYERS = 100;

const badRequest = (message: string) => new DomainError('bad_request', message);

function live(state: LobbyState): LiveLobbyState {
  if (state.status === 'none' || state.status === 'deleted') throw notFound('lobby');
  return state;
}

/** The lobby left its launch `launch` behind (deleted, ended, a later launch) and does not use `serverId`. */
function movedOn(state: Exclude<LobbyState, { status: 'none' }>, launch: number, serverId: string): boolean {
  if (state.status === 'deleted') return true;
  if (state.server?.instance_id === serverId) return false;
  return state.status !== 'starting' || state.launches !== launch;
}

const isMember = (state: LiveLobbyState, playerId: string) => state.players.some((p) => p.id === playerId);

function member(state: LobbyState, playerId: string): LiveLobbyState {
  const lobby = live(state);
  if (!isMember(lobby, playerId)) throw new DomainError('not_found', `player ${playerId} is not in this lobby`);
  return lobby;
}

function host(state: LobbyState, playerId: string, action: string): LiveLobbyState {
  const lobby = member(state, playerId);
  if (lobby.host !== playerId) throw forbidden(`only the host can ${action}`);
  return lobby;
}

function validMaxPlayers(n: number) {
  if (!Number.isInteger(n) || n < MIN_LOBBY_PLAYERS || n > MAX_LOBBY_PLAYERS) {
    throw invalid(`maxPlayers must be an integer from ${MIN_LOBBY_PLAYERS} to ${MAX_LOBBY_PLAYERS}`, ['body', 'maxPlayers']);
  }
}

/** `matchId` on a GameEnded, when the lobby's game was a match's. */
const inMatch = (lobby: LiveLobbyState) => (lobby.matchmaking?.matchId ? { matchId: lobby.matchmaking.matchId } : {});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Players leave (or time out): the lobby is deleted when empty, else the host rule applies if the host left. */
function departures(lobby: LiveLobbyState, ids: string[], reason: 'left' | 'timeout', behavior: HostLeaveBehavior, at: string): LobbyEvent[] {
  const leaving = new Set(ids.filter((id) => isMember(lobby, id)));
  if (leaving.size === 0) return [];
  const lobbyId = lobby.id;
  // In join order, so the stream reads the same whatever order the caller listed them in.
  const events: LobbyEvent[] = lobby.players
    .filter((p) => leaving.has(p.id))
    .map((p) => ({ type: 'PlayerLeft', data: { lobbyId, playerId: p.id, reason, at } }));
  const remaining = lobby.players.filter((p) => !leaving.has(p.id));
  if (remaining.length === 0) return [...events, { type: 'LobbyDeleted', data: { lobbyId, reason: 'empty', at } }];
  if (!leaving.has(lobby.host)) return events;
  if (behavior === 'close') return [...events, { type: 'LobbyDeleted', data: { lobbyId, reason: 'host_left', at } }];
  return [...events, { type: 'HostChanged', data: { lobbyId, from: lobby.host, to: remaining[0].id, reason: 'promoted', at } }];
}

export function decide(command: LobbyCommand, state: LobbyState): LobbyEvent[] {
  if (isMatchmakingCommand(command)) return decideMatchmaking(command, state, live, member);
  return matchmakingFollowUp(state, decideLobby(command, state));
}

function decideLobby(command: Exclude<LobbyCommand, { type: Parameters<typeof decideMatchmaking>[0]['type'] }>, state: LobbyState): LobbyEvent[] {
  const at = command.now;
  switch (command.type) {
    case 'CreateLobby': {
      if (state.status !== 'none') throw conflict('lobby already exists');
      validMaxPlayers(command.maxPlayers);
      return [{
        type: 'LobbyCreated',
        data: {
          lobbyId: command.lobbyId,
          projectId: command.projectId,
          config: command.config,
          code: command.code,
          hostId: command.hostId,
          name: command.name ?? null,
          maxPlayers: command.maxPlayers,
          region: command.region,
          isPrivate: command.isPrivate,
          allowLateJoin: command.allowLateJoin,
          settings: command.settings,
          hostState: command.hostState,
          at,
        },
      }];
    }
    case 'JoinLobby': {
      const lobby = live(state);
      if (isMember(lobby, command.playerId)) throw conflict('player is already in this lobby');
      if (lobby.status === 'match_found' || lobby.status === 'matched') throw conflict(`a match was found for this lobby (${lobby.status}): its roster is frozen`);
      // A join while queued issues a new ticket (matchmakingFollowUp).
      const accepting = lobby.status === 'waiting' || lobby.status === 'in_queue' || (lobby.status === 'in_game' && lobby.allowLateJoin);
      if (!accepting) throw badRequest(`lobby is not accepting players (${lobby.status})`);
      if (lobby.players.length >= lobby.maxPlayers) throw badRequest('lobby is full');
      return [{ type: 'PlayerJoined', data: { lobbyId: lobby.id, playerId: command.playerId, state: command.state, at } }];
    }
    case 'LeaveLobby': {
      const lobby = member(state, command.playerId);
      return departures(lobby, [command.playerId], 'left', command.hostLeaveBehavior, at);
    }
    case 'RemoveStalePlayers':
      return departures(live(state), command.playerIds, 'timeout', command.hostLeaveBehavior, at);
    case 'UpdatePlayerState': {
      if (command.by !== undefined && command.by !== command.playerId) host(state, command.by, "change another player's state");
      const lobby = member(state, command.playerId);
      if (!isObject(command.state)) throw invalid('state must be an object', ['body', 'state'], 'dict_type');
      const by = command.by !== undefined && command.by !== command.playerId ? { by: command.by } : {};
      return [{ type: 'PlayerStateUpdated', data: { lobbyId: lobby.id, playerId: command.playerId, ...by, state: command.state, at } }];
    }
    case 'UpdateSettings': {
      const lobby = host(state, command.playerId, 'change the lobby settings');
      const changes: LobbySettingsChanges = {};
      if (command.name !== undefined && command.name !== lobby.name) changes.name = command.name;
      if (command.maxPlayers !== undefined && command.maxPlayers !== lobby.maxPlayers) {
        validMaxPlayers(command.maxPlayers);
        if (command.maxPlayers < lobby.players.length) {
          throw invalid(`maxPlayers cannot be below the current player count (${lobby.players.length})`, ['body', 'maxPlayers'], 'greater_than_equal');
        }
        changes.maxPlayers = command.maxPlayers;
      }
      // Privacy only hides the lobby from browse: its invite code stays what it is.
      if (command.isPrivate !== undefined && command.isPrivate !== lobby.isPrivate) changes.isPrivate = command.isPrivate;
      if (command.allowLateJoin !== undefined && command.allowLateJoin !== lobby.allowLateJoin) changes.allowLateJoin = command.allowLateJoin;
      if (command.region !== undefined && command.region !== lobby.region) {
        if (SEARCHING.has(lobby.status)) throw conflict(`the region cannot change while the lobby is ${lobby.status}`);
        changes.region = command.region;
      }
      if (command.settings !== undefined) {
        if (!isObject(command.settings)) throw invalid('settings must be an object', ['body', 'settings'], 'dict_type');
        changes.settings = command.settings;
      }
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'LobbySettingsUpdated', data: { lobbyId: lobby.id, by: command.playerId, changes, at } }];
    }
    case 'KickPlayer': {
      const lobby = host(state, command.playerId, 'kick players');
      if (command.targetId === lobby.host) throw invalid('the host cannot kick themselves', ['body', 'playerId']);
      if (!isMember(lobby, command.targetId)) throw new DomainError('not_found', `player ${command.targetId} is not in this lobby`);
      return [{ type: 'PlayerKicked', data: { lobbyId: lobby.id, playerId: command.targetId, by: command.playerId, at } }];
    }
    case 'TransferHost': {
      const lobby = host(state, command.playerId, 'transfer the host role');
      if (!isMember(lobby, command.targetId)) throw new DomainError('not_found', `player ${command.targetId} is not in this lobby`);
      if (command.targetId === lobby.host) return [];
      return [{ type: 'HostChanged', data: { lobbyId: lobby.id, from: lobby.host, to: command.targetId, reason: 'transferred', at } }];
    }
    case 'StartGame': {
      const lobby = host(state, command.playerId, 'start the game');
      if (lobby.status !== 'waiting') throw conflict(`lobby is ${lobby.status}; a game can only be started from waiting`);
      return [{ type: 'GameStarting', data: { lobbyId: lobby.id, by: command.playerId, at } }];
    }
    case 'ServerAssigned': {
      if (command.launch !== undefined && state.status !== 'none' && movedOn(state, command.launch, command.server.instance_id)) {
        return [{ type: 'LobbyServerUnneeded', data: { lobbyId: state.id, server: command.server, launch: command.launch, at } }];
      }
      const lobby = live(state);
      if (lobby.server?.instance_id === command.server.instance_id) return [];
      // A match's lobby gets its server once matched.
      const matched = lobby.status === 'matched' && lobby.matchmaking?.matchId;
      if (lobby.status !== 'starting' && !matched) throw conflict(`lobby is ${lobby.status}, not starting`);
      return [{ type: 'LobbyServerAssigned', data: { lobbyId: lobby.id, server: command.server, at } }];
    }
    case 'ServerRunning': {
      const lobby = live(state);
      if (lobby.status === 'in_game') return [];
      if (lobby.status !== 'starting') throw conflict(`lobby is ${lobby.status}, not starting`);
      if (!lobby.server) throw conflict('no server is assigned to this lobby');
      if (!command.server) return [{ type: 'GameStarted', data: { lobbyId: lobby.id, at } }];
      // A late report of a server the lobby no longer uses moves nothing.
      if (command.server.instance_id !== lobby.server.instance_id) throw conflict(`the lobby's server is ${lobby.server.instance_id}, not ${command.server.instance_id}`);
      // The report (status, ports) over the view assigned at launch (region, build, custom data …).
      return [{ type: 'GameStarted', data: { lobbyId: lobby.id, server: { ...lobby.server, ...command.server }, at } }];
    }
    case 'ServerStopped': {
      const lobby = live(state);
      if (lobby.status !== 'starting' && lobby.status !== 'in_game') return [];
      // The stop of a server this lobby does not use moves nothing, also while a new launch has no server
      // yet ('' is "no server": an abandoned launch): a late stop of its last game's server must not undo
      // the next start (if it was this launch's server after all, the lobby-server workflow sends the stop
      // again when the assignment comes).
      if (command.instanceId !== undefined && (lobby.server?.instance_id ?? '') !== command.instanceId) return [];
      return [{ type: 'GameEnded', data: { lobbyId: lobby.id, reason: 'server_stopped', by: null, ...inMatch(lobby), at } }];
    }
    case 'EndMatch': {
      const lobby = host(state, command.playerId, 'end the match');
      if (lobby.status !== 'in_game') throw conflict(`lobby is ${lobby.status}, not in_game`);
      return [{ type: 'GameEnded', data: { lobbyId: lobby.id, reason: 'host', by: command.playerId, ...inMatch(lobby), at } }];
    }
    case 'DeleteLobby': {
      const lobby = live(state);
      return [{ type: 'LobbyDeleted', data: { lobbyId: lobby.id, reason: command.reason, at } }];
    }
  }
}
