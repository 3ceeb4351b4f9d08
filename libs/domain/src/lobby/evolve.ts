import { LobbyEvent } from './events';
import { LiveLobbyState, LobbyPlayer, LobbyState } from './state';

const seen = (players: LobbyPlayer[], playerId: string, at: string) =>
  players.map((p) => (p.id === playerId ? { ...p, lastSeenAt: at } : p));

export function evolve(state: LobbyState, event: LobbyEvent): LobbyState {
  if (event.type === 'LobbyCreated') {
    const d = event.data;
    return {
      status: 'waiting',
      id: d.lobbyId,
      projectId: d.projectId,
      config: d.config,
      code: d.code,
      host: d.hostId,
      name: d.name,
      maxPlayers: d.maxPlayers,
      players: [{ id: d.hostId, state: d.hostState, joinedAt: d.at, lastSeenAt: d.at }],
      region: d.region,
      isPrivate: d.isPrivate,
      allowLateJoin: d.allowLateJoin,
      settings: d.settings,
      server: null,
      createdAt: d.at,
      updatedAt: d.at,
      lastActivityAt: d.at,
      launches: 0,
      matchmaking: null,
      matchmakingError: null,
      tickets: 0,
    };
  }
  // A server nobody uses changes nothing here (the lobby-launch workflow stops it).
  if (state.status === 'none' || state.status === 'deleted' || event.type === 'LobbyServerUnneeded') return state;
  const s: LiveLobbyState = state;
  const at = event.data.at;
  // A change every member can see (and, for member requests, activity that keeps the lobby alive).
  const changed = { updatedAt: at, lastActivityAt: at };
  switch (event.type) {
    case 'PlayerJoined':
      return { ...s, ...changed, players: [...s.players, { id: event.data.playerId, state: event.data.state, joinedAt: at, lastSeenAt: at }] };
    case 'PlayerLeft':
    case 'PlayerKicked':
      return { ...s, ...changed, players: s.players.filter((p) => p.id !== event.data.playerId) };
    case 'HostChanged':
      return { ...s, ...changed, host: event.data.to };
    case 'PlayerStateUpdated': {
      const { playerId, by, state: patch } = event.data;
      // Who acted was seen (the host changing another member's state says nothing of that member).
      const players = seen(s.players, by ?? playerId, at).map((p) => (p.id === playerId ? { ...p, state: { ...p.state, ...patch } } : p));
      return { ...s, ...changed, players };
    }
    case 'LobbySettingsUpdated':
      return { ...s, ...event.data.changes, ...changed };
    case 'GameStarting':
      // `?? 0`: a state stored before launches were counted (a read-model snapshot) starts from 0.
      return { ...s, ...changed, status: 'starting', server: null, launches: (s.launches ?? 0) + 1 };
    case 'LobbyServerAssigned':
      return { ...s, status: 'starting', server: event.data.server, updatedAt: at };
    case 'GameStarted':
      return { ...s, status: 'in_game', server: event.data.server ?? s.server, updatedAt: at };
    case 'GameEnded':
      return event.data.reason === 'host'
        ? { ...s, ...changed, status: 'waiting', server: null, matchmaking: null }
        : { ...s, status: 'waiting', server: null, matchmaking: null, updatedAt: at };
    case 'LobbyDeleted':
      return { ...s, status: 'deleted', deleteReason: event.data.reason, players: [], server: null, matchmaking: null, updatedAt: at };
    case 'MatchmakingStarted': {
      const q = event.data.queue;
      const matchmaking = { mode: q.mode, startedAt: q.queuedAt, timeoutAt: event.data.timeoutAt, ticket: q.ticket, matchId: null, confirmation: null };
      return { ...s, ...changed, status: 'in_queue', matchmaking, matchmakingError: null, tickets: q.ticket };
    }
    case 'MatchmakingTicketChanged': {
      if (!s.matchmaking) return s;
      const matchmaking = { ...s.matchmaking, ticket: event.data.queue.ticket, matchId: null, confirmation: null };
      return { ...s, status: 'in_queue', matchmaking, tickets: event.data.queue.ticket, updatedAt: at };
    }
    case 'LobbyReserved':
      // Not a change members see: the lobby is still in_queue until the match forms.
      return s.matchmaking ? { ...s, matchmaking: { ...s.matchmaking, matchId: event.data.matchId } } : s;
    case 'LobbyMatchFound': {
      if (!s.matchmaking) return s;
      const deadline = event.data.confirmationDeadline;
      return { ...s, status: 'match_found', matchmaking: { ...s.matchmaking, confirmation: deadline ? { deadline, confirmed: false } : null }, updatedAt: at };
    }
    case 'LobbyMatchConfirmed': {
      const c = s.matchmaking?.confirmation;
      return c ? { ...s, ...changed, matchmaking: { ...s.matchmaking!, confirmation: { ...c, confirmed: true } } } : s;
    }
    case 'LobbyMatched':
      return { ...s, status: 'matched', updatedAt: at };
    case 'MatchmakingEnded':
      return { ...s, status: 'waiting', matchmaking: null, matchmakingError: event.data.error, updatedAt: at };
  }
}
