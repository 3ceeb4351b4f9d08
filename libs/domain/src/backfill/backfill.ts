// A game server's match as its backfill sees it (decisions.md "Backfill"), on `backfill-<match id>`: every
// server has one from its start. Its status follows the server (completed once the server stopped, which
// the caller reads from the server and passes on the command) and the game's overrides: `accepting: true`
// opens the roster to joiners (in_game, backfill_open, the window refreshed from now), `accepting: false`
// locks it. Every override increments `roster_version`; a `skillBand` replaces the band, omitted it stays.
import { conflict, Decider, DomainEvent } from '../kit';

export const backfillStream = (matchId: string) => `backfill-${matchId}`;

export interface SkillBand { field: string; min: number; max: number }

/** What the caller read of the server the match runs on. */
export interface BackfillServer {
  instanceId: string;
  matchId: string;
  /** The server's start (the window's first start), or null while it has not run. */
  startedAt: string | null;
  stopped: boolean;
  /** Seconds a window stays open (the mode's backfillWindow, else 60). */
  windowSeconds: number;
  /** The mode lets the engine fill freed slots (its window opens at the server's start). */
  engineManaged: boolean;
}

export type BackfillCommand =
  | { type: 'OverrideBackfill'; server: BackfillServer; accepting: boolean; skillBand?: SkillBand; now: string }
  /**
   * The game's roster changed (a lobby left, a fill joined): `freeSlots` freed slots are open now; `roster`
   * is the game's teams (player ids) after the change, so a read of the record shows the roster of its version.
   */
  | { type: 'ChangeRoster'; matchId: string; freeSlots: number; reason: 'left' | 'filled'; roster: string[][]; now: string };

export type BackfillOverridden = DomainEvent<'BackfillOverridden', {
  matchId: string; instanceId: string; accepting: boolean; skillBand: SkillBand | null; deadline: string | null; rosterVersion: number; at: string;
}>;
/** `roster`: absent on events recorded before it was carried (their reads fall back to the server's custom_data). */
export type BackfillRosterChanged = DomainEvent<'BackfillRosterChanged', { matchId: string; freeSlots: number; reason: 'left' | 'filled'; roster?: string[][]; rosterVersion: number; at: string }>;
export type BackfillEvent = BackfillOverridden | BackfillRosterChanged;

export interface BackfillState {
  /** Overrides so far (none: the match as its server started it). */
  overridden: boolean;
  accepting: boolean;
  skillBand: SkillBand | null;
  deadline: string | null;
  rosterVersion: number;
  /** Slots freed in the game and not filled yet (engine-managed backfill opens while there are some). */
  freeSlots?: number;
  /** The teams as of the last roster change (none before one: the server's custom_data has the start's). */
  roster?: string[][];
}

export const DEFAULT_BACKFILL_WINDOW_S = 60;
const after = (at: string, seconds: number) => new Date(Date.parse(at) + seconds * 1000).toISOString();

function decide(command: BackfillCommand, state: BackfillState): BackfillEvent[] {
  if (command.type === 'ChangeRoster') {
    const { matchId, freeSlots, reason, roster, now: at } = command;
    return [{ type: 'BackfillRosterChanged', data: { matchId, freeSlots, reason, roster, rosterVersion: state.rosterVersion + 1, at } }];
  }
  const { server, now } = command;
  if (server.stopped) throw conflict(`match ${server.matchId} is completed (its server stopped)`);
  const skillBand = command.skillBand ?? state.skillBand;
  const deadline = command.accepting ? after(now, server.windowSeconds) : state.deadline;
  return [{
    type: 'BackfillOverridden',
    data: { matchId: server.matchId, instanceId: server.instanceId, accepting: command.accepting, skillBand, deadline, rosterVersion: state.rosterVersion + 1, at: now },
  }];
}

function evolve(state: BackfillState, event: BackfillEvent): BackfillState {
  if (event.type === 'BackfillRosterChanged') {
    const { freeSlots, roster, rosterVersion } = event.data;
    return { ...state, freeSlots, rosterVersion, ...(roster ? { roster } : {}) };
  }
  const d = event.data;
  return { ...state, overridden: true, accepting: d.accepting, skillBand: d.skillBand, deadline: d.deadline, rosterVersion: d.rosterVersion };
}

export const backfillDecider: Decider<BackfillCommand, BackfillEvent, BackfillState> = {
  initialState: { overridden: false, accepting: false, skillBand: null, deadline: null, rosterVersion: 0 },
  decide,
  evolve,
};

/** The Backfill state resource (interface "Backfill state"), plus the roster the game sees. */
export interface BackfillView {
  match_id: string;
  instance_id: string;
  status: 'in_game' | 'locked' | 'completed';
  backfill_open: boolean;
  backfill_deadline: string | null;
  skill_band: SkillBand | null;
  roster_version: number;
  roster: string[][];
}

/**
 * The match now. `roster`: the teams of the last roster change, so it always belongs to `roster_version`;
 * before any change, the teams of the server's custom_data.match (`started`; empty for a direct start). The
 * server's custom_data follows a change a moment later (another service's write).
 */
export function backfillView(state: BackfillState, server: BackfillServer, started: string[][], now: string): BackfillView {
  const roster = state.roster ?? started;
  const status = server.stopped ? 'completed' : state.overridden && !state.accepting ? 'locked' : 'in_game';
  // Before any override an engine-managed match's window runs from the server's start; a direct start has none.
  const deadline = state.overridden ? state.deadline : server.engineManaged && server.startedAt ? after(server.startedAt, server.windowSeconds) : null;
  // Open by the game's override, or (engine-managed, not locked) while freed slots wait for a fill.
  const accepting = state.overridden ? state.accepting : server.engineManaged && (state.freeSlots ?? 0) > 0;
  const open = status === 'in_game' && accepting && deadline !== null && now <= deadline;
  return {
    match_id: server.matchId, instance_id: server.instanceId, status, backfill_open: open,
    backfill_deadline: status === 'completed' ? null : deadline, skill_band: state.skillBand, roster_version: state.rosterVersion, roster,
  };
}
