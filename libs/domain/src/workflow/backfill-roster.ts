// A game's roster as its backfill record counts it (decisions.md: every roster change increments
// roster_version), per match, in the backfill service: it folds the match's events and tells the record
// each change, with the slots freed and not yet filled (engine-managed backfill is open while there are
// some). Only slots that free up count, not a short start's initial gaps.
import { BackfillCommand } from '../backfill';
import { matchDecider, MatchEvent, MatchState } from '../matchmaking/match';
import { CommandIntent, Workflow } from './workflow';

export interface BackfillRosterState {
  match: MatchState;
  /** Players per team when the game began. */
  initial: number[] | null;
  changes: number;
}

const ROSTER = new Set<string>(['MatchLobbyLeft', 'MatchFilled']);

export const backfillRosterWorkflow: Workflow<MatchEvent, BackfillRosterState, CommandIntent<BackfillCommand>> = {
  name: 'backfill-roster',
  categories: ['match'],
  initialState: { match: { status: 'none' }, initial: null, changes: 0 },

  route: (event) => [event.data.matchId],
  // A match's first event.
  startsOver: (event) => event.type === 'MatchProposed',

  evolve(state, event) {
    const match = matchDecider.evolve(state.match, event);
    const initial = state.initial ?? (event.type === 'MatchServerAssigned' && match.status !== 'none' ? match.teams.map((t) => t.length) : null);
    return { match, initial, changes: state.changes + (ROSTER.has(event.type) ? 1 : 0) };
  },

  react(state, event) {
    if (!ROSTER.has(event.type) || !state.initial || state.match.status === 'none') return [];
    const teams = state.match.teams;
    const freeSlots = state.initial.reduce((n, size, i) => n + Math.max(0, size - (teams[i]?.length ?? 0)), 0);
    const matchId = event.data.matchId;
    return [{
      kind: 'command',
      target: { aggregate: 'backfill', id: matchId, projectId: state.match.projectId },
      command: { type: 'ChangeRoster', matchId, freeSlots, reason: event.type === 'MatchFilled' ? 'filled' : 'left', roster: teams, now: event.data.at },
      key: `backfill-roster:${matchId}:${state.changes}`,
    }];
  },
};
