// A game's roster as its backfill record counts it (decisions.md: every roster change increments
// roster_version), per match, in the backfill service: it folds the match's events and tells the record
// each change, with the slots freed and not yet filled (engine-managed backfill is open while there are
// some). Only slots that free up count, not a short start's initial gaps.
// The state is the roster alone (who is in which lobby and team), not the whole match: the events of a
// match's formation and server attempts leave it as it was (the same value), so the runner stores nothing
// for them; only the proposal, the server's assignment and roster changes are written.
import { BackfillCommand } from '../backfill';
import { MatchEvent, MatchState } from '../matchmaking/match';
import { CommandIntent, Workflow } from './workflow';

export interface BackfillRosterState {
  projectId: string | null;
  /** Each lobby of the match (fills included) with its players. */
  lobbies: [string, string[]][];
  /** Player ids per team. */
  teams: string[][];
  /** The game is on (server assigned, match not over): only then do leaves and fills change the roster. */
  live: boolean;
  /** Players per team when the game began. */
  initial: number[] | null;
  changes: number;
}

/** What an earlier version stored: the whole match state. */
interface StoredMatchState { match: MatchState; initial: number[] | null; changes: number }

const ROSTER = new Set<string>(['MatchLobbyLeft', 'MatchFilled']);
const OVER = new Set<string>(['MatchCompleted', 'MatchFailed', 'MatchAborted', 'MatchDissolved']);
const EMPTY: BackfillRosterState = { projectId: null, lobbies: [], teams: [], live: false, initial: null, changes: 0 };

/** A state stored by an earlier version (the whole match) as the roster it holds. */
function current(state: BackfillRosterState | StoredMatchState): BackfillRosterState {
  if (!('match' in state)) return state;
  const m = state.match;
  if (m.status === 'none') return { ...EMPTY, initial: state.initial, changes: state.changes };
  return {
    projectId: m.projectId, lobbies: m.lobbies.map((l) => [l.lobbyId, l.players]), teams: m.teams,
    live: m.status === 'assigned' || m.status === 'running', initial: state.initial, changes: state.changes,
  };
}

export const backfillRosterWorkflow: Workflow<MatchEvent, BackfillRosterState, CommandIntent<BackfillCommand>> = {
  name: 'backfill-roster',
  categories: ['match'],
  initialState: EMPTY,

  route: (event) => [event.data.matchId],
  // A match's first event.
  startsOver: (event) => event.type === 'MatchProposed',

  evolve(stored, event) {
    if (event.type === 'MatchProposed') {
      const p = event.data;
      return { projectId: p.projectId, lobbies: p.lobbies.map((l) => [l.lobbyId, l.players]), teams: p.teams, live: false, initial: null, changes: 0 };
    }
    const state = current(stored);
    if (state.projectId === null) return state;
    const counted = ROSTER.has(event.type) ? { ...state, changes: state.changes + 1 } : state;
    switch (event.type) {
      case 'MatchServerAssigned':
        return state.live && state.initial ? state : { ...state, live: true, initial: state.initial ?? state.teams.map((t) => t.length) };
      case 'MatchLobbyLeft': {
        if (!state.live) return counted;
        // Its players leave their team: their slots are free (a fill may take them).
        const gone = new Set(state.lobbies.find(([id]) => id === event.data.lobbyId)?.[1] ?? []);
        return { ...counted, teams: state.teams.map((t) => t.filter((p) => !gone.has(p))) };
      }
      case 'MatchFilled':
        if (!state.live) return counted;
        return {
          ...counted, lobbies: [...state.lobbies, [event.data.lobbyId, event.data.players]],
          teams: state.teams.map((t, i) => (i === event.data.team ? [...t, ...event.data.players] : t)),
        };
      default:
        return OVER.has(event.type) && state.live ? { ...state, live: false } : state;
    }
  },

  // `state` is evolve's output, so never the earlier version's shape.
  react(state, event) {
    if (!ROSTER.has(event.type) || !state.initial || state.projectId === null) return [];
    const teams = state.teams;
    const freeSlots = state.initial.reduce((n, size, i) => n + Math.max(0, size - (teams[i]?.length ?? 0)), 0);
    const matchId = event.data.matchId;
    return [{
      kind: 'command',
      target: { aggregate: 'backfill', id: matchId, projectId: state.projectId },
      command: { type: 'ChangeRoster', matchId, freeSlots, reason: event.type === 'MatchFilled' ? 'filled' : 'left', roster: teams, now: event.data.at },
      key: `backfill-roster:${matchId}:${state.changes}`,
    }];
  },
};
