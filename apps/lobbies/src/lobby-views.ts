// One mapper per view the lobbies service answers or broadcasts. The lobby itself is the v3 Lobby JSON
// (`lobbyView` in the domain).
import { LiveLobbyState, lobbyView as domainLobbyView, LobbyState, LobbyView } from '@spawnpoint/domain';
import { LiveQueueStats } from '@spawnpoint/service-clients';
import { DeletedLobby, LeftLobby, LobbyPage, LobbyStreamEvent, LobbyUpdate, OpenedLobbyStream } from '@spawnpoint/proto';

/**
 * The matcher's last figures for every queue, kept by this process (LobbiesHost follows the broadcast):
 * one per process, read by the pure mappers below whichever handler calls them.
 */
export const liveQueueStats = new LiveQueueStats();

/** The v3 Lobby JSON, with its queue's live figures while it searches. */
export function lobbyView(state: LobbyState): LobbyView {
  if (state.status === 'none' || state.status === 'deleted' || !state.matchmaking) return domainLobbyView(state);
  return domainLobbyView(state, liveQueueStats.of(state.projectId, state.config, state.matchmaking.mode, state.region));
}

/** A write's answer: the view it broadcast, or (nothing broadcast) the lobby as it stands. */
export const viewAfter = (ran: { view: LobbyView | null; state: LobbyState }): LobbyView => ran.view ?? lobbyView(ran.state);

/** A browse page: the lobbies' stored states (read model rows) as Lobby JSON. */
export function lobbyPage(states: unknown[], page: { total: number; limit: number; offset: number }): LobbyPage<LobbyView> {
  return { lobbies: states.map((s) => lobbyView(s as LobbyState)), ...page, hasMore: page.offset + states.length < page.total };
}

export const leftLobby = (lobbyId: string): LeftLobby => ({ status: 'left', lobbyId });

export const deletedLobby = (id: string): DeletedLobby => ({ status: 'lobby_deleted', id });

/** The change at `revision` as the gateways' event streams receive it (`lobbies.updates`). */
export function lobbyUpdate(
  at: { projectId: string; config: string; lobbyId: string; revision: number }, state: LobbyState, deleted: { reason?: string } | null, removed: string[],
  matchFound = false,
): LobbyUpdate {
  const live = state.status !== 'none' && state.status !== 'deleted';
  return { ...at, kind: deleted ? 'deleted' : matchFound ? 'match_found' : 'updated', lobby: live ? lobbyView(state) : null, reason: deleted?.reason, removed };
}

/** One replayed server-sent event: the lobby after `revision`, or its deletion. */
export function lobbyStreamEvent(lobbyId: string, revision: number, state: LobbyState): LobbyStreamEvent {
  const id = `${lobbyId}:${revision}`;
  if (state.status === 'deleted') return { id, event: 'lobby_deleted', data: { id: lobbyId, reason: state.deleteReason } };
  return { id, event: 'lobby_updated', data: lobbyView(state) };
}

export function openedLobbyStream(replay: LobbyStreamEvent[], mine: { lobbyId: string; state: LiveLobbyState; revision: number } | null): OpenedLobbyStream {
  if (!mine) return { replay, lobbyId: null, revision: -1, lobby: null };
  return { replay, lobbyId: mine.lobbyId, revision: mine.revision, lobby: lobbyView(mine.state) };
}
