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

/**
 * No state: the timer says which search it is for (its first queue time), and the lobby decider takes a
 * QueueTimeout only for the search it is in (same first queue time, still queued, not held, past the
 * deadline). A search that ends cancels the timer; a new one moves it (one timer per lobby).
 */
export type LobbyQueueState = null;

const timerId = (lobbyId: string) => `lobby-queue:${lobbyId}`;
// A match found does not end the search: a match that falls through puts the lobby back in the queue, and
// the timer still pending then fires at the first search's deadline (a release past it ends the search).
const SEARCH_OVER = new Set<string>(['MatchmakingEnded', 'LobbyDeleted', 'GameEnded']);

export const lobbyQueueWorkflow: Workflow<LobbyQueueEvent, LobbyQueueState, LobbyQueueIntent> = {
  name: 'lobby-queue',
  categories: ['lobby'],
  initialState: null,
  stateless: true,

  route: (event) => (event.type === 'MatchmakingStarted' || event.type === 'LobbyQueueTimedOut' || SEARCH_OVER.has(event.type) ? [event.data.lobbyId] : []),

  evolve: (state) => state,

  react(_state, event) {
    const lobbyId = event.data.lobbyId;
    if (event.type === 'MatchmakingStarted') {
      const due: LobbyQueueTimedOut = { type: 'LobbyQueueTimedOut', data: { lobbyId, startedAt: event.data.queue.queuedAt, at: event.data.timeoutAt } };
      return [{ kind: 'timer', id: timerId(lobbyId), at: due.data.at, then: due }];
    }
    if (event.type === 'LobbyQueueTimedOut') {
      // A search that ended or started again since is not timed out: the lobby decider refuses it.
      const timeout: CommandIntent<LobbyCommand> = {
        kind: 'command',
        target: { aggregate: 'lobby', id: lobbyId, projectId: null },
        command: { type: 'QueueTimeout', startedAt: event.data.startedAt, now: event.data.at },
        key: `lobby-queue:${lobbyId}:${event.data.startedAt}:timeout`,
      };
      return [timeout];
    }
    // Ended, deleted, played: the timer has nothing left to do.
    return [{ kind: 'cancel-timer', id: timerId(lobbyId) }];
  },
};
