// A queued lobby's search timeout (decisions.md: on expiry the lobby returns to waiting with
// matchmakingError "timeout"), per lobby, in the lobbies service: it fires even when the matcher is down.
// A lobby held by a match at that moment is the match's to let go (a release past the timeout ends the
// search), so the lobby decider ignores the timer then.
import { DomainEvent } from '../kit';
import { LobbyCommand, LobbyEvent } from '../lobby';
import { CommandIntent, Intent, Workflow } from './workflow';

export type LobbyQueueTimedOut = DomainEvent<'LobbyQueueTimedOut', { lobbyId: string; startedAt: string; at: string }>;
export type LobbyQueueEvent = LobbyEvent | LobbyQueueTimedOut;
export type LobbyQueueIntent = Intent<LobbyCommand, LobbyQueueTimedOut>;

export interface LobbyQueueState {
  /** The search the timer is for (its first queue time), null when not searching. */
  startedAt: string | null;
}

const timerId = (lobbyId: string) => `lobby-queue:${lobbyId}`;
// A match found does not end the search: a match that falls through puts the lobby back in the queue, and
// the timer still pending then fires at the first search's deadline (a release past it ends the search).
const SEARCH_OVER = new Set<string>(['MatchmakingEnded', 'LobbyDeleted', 'GameEnded']);

export const lobbyQueueWorkflow: Workflow<LobbyQueueEvent, LobbyQueueState, LobbyQueueIntent> = {
  name: 'lobby-queue',
  categories: ['lobby'],
  initialState: { startedAt: null },

  route: (event) => (event.type === 'MatchmakingStarted' || event.type === 'LobbyQueueTimedOut' || SEARCH_OVER.has(event.type) ? [event.data.lobbyId] : []),
  // evolve sets the whole state on these, whatever it was.
  startsOver: (event) => event.type === 'MatchmakingStarted' || SEARCH_OVER.has(event.type),

  evolve(state, event) {
    if (event.type === 'MatchmakingStarted') return { startedAt: event.data.queue.queuedAt };
    if (SEARCH_OVER.has(event.type)) return { startedAt: null };
    return state;
  },

  react(state, event) {
    const lobbyId = event.data.lobbyId;
    if (event.type === 'MatchmakingStarted') {
      const due: LobbyQueueTimedOut = { type: 'LobbyQueueTimedOut', data: { lobbyId, startedAt: event.data.queue.queuedAt, at: event.data.timeoutAt } };
      return [{ kind: 'timer', id: timerId(lobbyId), at: due.data.at, then: due }];
    }
    if (event.type === 'LobbyQueueTimedOut') {
      if (state.startedAt !== event.data.startedAt) return [];
      const timeout: CommandIntent<LobbyCommand> = {
        kind: 'command',
        target: { aggregate: 'lobby', id: lobbyId, projectId: null },
        command: { type: 'QueueTimeout', startedAt: event.data.startedAt, now: event.data.at },
        key: `lobby-queue:${lobbyId}:${event.data.startedAt}:timeout`,
      };
      return [timeout];
    }
    // Ended, deleted, played: the timer has nothing left to do.
    return state.startedAt === null ? [{ kind: 'cancel-timer', id: timerId(lobbyId) }] : [];
  },
};
