// One match, on its own stream (`match-<id>`): proposed by the matcher, formed once every lobby is reserved
// on its own stream at its ticket revision (no multi-stream transaction: a refused reservation aborts it,
// and the lobbies already reserved are released with their first queue time), confirmed by each lobby
// when the mode asks for it, then given a server (pool first, idempotent by match id; a failed start is
// tried again, the third failure fails the match), running, and completed when its server stops or its
// last lobby leaves. Every lobby of the match follows these events (the workflows that carry them out
// are not here: this is only what the match itself decides).
import { conflict, Decider, DomainError, DomainEvent, invalid } from '../kit';
import { timeAfter } from '../workflow/workflow';
import type { ServerSnapshot } from '../server/resource';

/** A failed server start is tried again; the third failure fails the match (decisions.md). */
export const MAX_MATCH_SERVER_ATTEMPTS = 3;

export const matchStream = (matchId: string) => `match-${matchId}`;

export interface MatchLobby {
  lobbyId: string;
  /** The lobby stream's revision of the ticket matched: the reservation holds only at that revision. */
  ticket: number;
  players: string[];
  rating: number;
  /** When the lobby started searching (kept when it goes back to the queue). */
  queuedAt: string;
  /** Role modes: each player's role, in the order of `players` (engine backfill fills a freed slot by its role). */
  roles?: string[];
}

export interface MatchProposal {
  matchId: string;
  projectId: string;
  config: string;
  mode: string;
  region: string;
  lobbies: MatchLobby[];
  /** Player ids per team (role modes: each team holds its role slots). */
  teams: string[][];
  requireConfirmation: boolean;
  /** How long the lobbies have to confirm, from formation (ms). */
  confirmationTimeoutMs: number;
  /** Engine-managed backfill (the mode's allowBackfill): a slot freed in a game may be filled. */
  allowBackfill?: boolean;
  /** Players a team holds (the mode's playersPerTeam): the free slots a fill may take. */
  playersPerTeam?: number;
}

export type MatchCommand =
  | { type: 'ProposeMatch'; proposal: MatchProposal; now: string }
  /**
   * `tellsLobbies`: the sender tells every lobby MatchFound itself when this reservation forms the match
   * (MatchFormed says so: `lobbiesTold`), so the workflow does not (one hop fewer to `matched`).
   */
  | { type: 'ReserveLobby'; lobbyId: string; now: string; tellsLobbies?: boolean }
  | { type: 'RefuseReservation'; lobbyId: string; reason: string; now: string }
  | { type: 'ConfirmLobby'; lobbyId: string; now: string }
  | { type: 'DeclineLobby'; lobbyId: string; reason: 'declined' | 'left'; now: string }
  | { type: 'ExpireConfirmation'; now: string }
  | { type: 'RequestServer'; now: string }
  | { type: 'FailServerStart'; attempt: number; error: string; now: string }
  /** `server`: the server as its start answered (what each lobby of the match is given). */
  | { type: 'AssignServer'; serverId: string; server?: ServerSnapshot; now: string }
  | { type: 'MarkServerRunning'; serverId: string; now: string }
  | { type: 'LeaveMatch'; lobbyId: string; now: string }
  /**
   * A lobby left the match on its own (cancel, a member change dropping its reservation, a leave, deletion),
   * whatever the match's status: before formation it aborts, while confirming it declines, before a server
   * it aborts (the others queued again), with a server it leaves.
   */
  | { type: 'DropLobby'; lobbyId: string; reason: string; now: string }
  | { type: 'ServerStopped'; serverId: string; now: string }
  /** Backfill (engine-managed): a queued lobby proposed for free slots of `team` in the running game. */
  | { type: 'ProposeFill'; lobby: MatchLobby; team: number; now: string }
  /**
   * The game opens (true) or locks (false) its roster (PATCH …/backfill), told to the match before the
   * backfill record: a lock gives up a fill in flight, and no fill is proposed while locked, so a lock the
   * game was answered is never followed by a lobby joining.
   */
  | { type: 'SetBackfillAccepting'; accepting: boolean; now: string }
  /**
   * A match that did not form in time (FORMATION_DEADLINE_MS of the workflow) ends cleanly. Only a match
   * still reserving: one that formed meanwhile is left alone (a deadline decided on a workflow's view that
   * had not heard the formation yet must not undo it; under load that turned into a livelock of aborts and
   * new proposals).
   */
  | { type: 'AbortMatch'; reason: string; now: string };

type Id = { matchId: string; at: string };
export type MatchProposed = DomainEvent<'MatchProposed', MatchProposal & { at: string }>;
export type MatchLobbyReserved = DomainEvent<'MatchLobbyReserved', Id & { lobbyId: string }>;
/**
 * `serverRequested`: the same decision asked for the first server (a MatchServerRequested follows in the
 * same append). Absent in events stored before it was decided here: the workflow asks for it then.
 * `lobbiesTold`: the reservation that formed it came from a sender that tells the lobbies MatchFound
 * (ReserveLobby's `tellsLobbies`); absent, the workflow tells them.
 */
export type MatchFormed = DomainEvent<'MatchFormed', Id & { confirmationDeadline: string | null; serverRequested?: boolean; lobbiesTold?: boolean }>;
/** `release`: the lobbies reserved so far, to go back to the queue with their first queue time. */
export type MatchAborted = DomainEvent<'MatchAborted', Id & { reason: string; release: string[] }>;
export type MatchLobbyConfirmed = DomainEvent<'MatchLobbyConfirmed', Id & { lobbyId: string }>;
/** `serverRequested`: as for MatchFormed. */
export type MatchConfirmed = DomainEvent<'MatchConfirmed', Id & { serverRequested?: boolean }>;
/** `requeue`: confirmed lobbies (back in the queue, first queue time kept); `release`: the others (back to waiting with `reason` as matchmakingError). */
export type MatchDissolved = DomainEvent<'MatchDissolved', Id & { reason: 'declined' | 'confirmation_timeout'; requeue: string[]; release: string[] }>;
export type MatchServerRequested = DomainEvent<'MatchServerRequested', Id & { attempt: number }>;
/** `serverRequested`: the same decision asked for the next attempt (as for MatchFormed). */
export type MatchServerStartFailed = DomainEvent<'MatchServerStartFailed', Id & { attempt: number; error: string; serverRequested?: boolean }>;
/** Every lobby back to waiting with `error` as matchmakingError. */
export type MatchFailed = DomainEvent<'MatchFailed', Id & { error: string; lobbies: string[] }>;
export type MatchServerAssigned = DomainEvent<'MatchServerAssigned', Id & { serverId: string; server?: ServerSnapshot }>;
export type MatchRunning = DomainEvent<'MatchRunning', Id & { serverId: string }>;
export type MatchLobbyLeft = DomainEvent<'MatchLobbyLeft', Id & { lobbyId: string }>;
/** `stopServer`: the last lobby left a running match (its server is to stop); false when the server stopped. */
export type MatchCompleted = DomainEvent<'MatchCompleted', Id & { reason: 'server_stopped' | 'all_left'; serverId: string; remaining: string[]; stopServer: boolean }>;

/**
 * A lobby's reservation that landed after the match fell through (its refusal by another lobby raced it),
 * or after its fill was given up: the lobby is to be let go (back in the queue).
 */
export type MatchReservationReturned = DomainEvent<'MatchReservationReturned', Id & { lobbyId: string }>;
/** A queued lobby proposed to fill free slots of a team (one fill in flight per match). */
export type MatchFillProposed = DomainEvent<'MatchFillProposed', Id & { lobby: MatchLobby; team: number }>;
/** The fill's lobby is reserved: it joins the game in `team` (the match's lobbies and teams now include it). */
export type MatchFilled = DomainEvent<'MatchFilled', Id & { lobbyId: string; team: number; players: string[]; serverId: string }>;
/** The fill's lobby refused its reservation (its ticket changed, it left the queue), or the game locked its roster. */
export type MatchFillAborted = DomainEvent<'MatchFillAborted', Id & { lobbyId: string; reason: string }>;

/** The game locked (`accepting: false`) or reopened its roster. */
export type MatchBackfillAccepting = DomainEvent<'MatchBackfillAccepting', Id & { accepting: boolean }>;

export type MatchEvent =
  | MatchProposed | MatchLobbyReserved | MatchFormed | MatchAborted | MatchLobbyConfirmed | MatchConfirmed | MatchDissolved
  | MatchServerRequested | MatchServerStartFailed | MatchFailed | MatchServerAssigned | MatchRunning | MatchLobbyLeft | MatchCompleted
  | MatchFillProposed | MatchFilled | MatchFillAborted | MatchReservationReturned | MatchBackfillAccepting;

type Base = MatchProposal & { proposedAt: string };
export type MatchState =
  | { status: 'none' }
  | (Base & { status: 'proposed'; reserved: string[] })
  | (Base & { status: 'confirming'; confirmed: string[]; deadline: string })
  /** Ready for a server (again, after a failed start: `attempts` so far). */
  | (Base & { status: 'confirmed'; attempts: number; lastError: string | null })
  | (Base & { status: 'server_requested'; attempts: number })
  /** `fill`: the lobby proposed for free slots, while its reservation is in flight; `locked`: the game took no fills. */
  | (Base & { status: 'assigned' | 'running'; serverId: string; left: string[]; fill?: { lobby: MatchLobby; team: number } | null; locked?: boolean })
  | (Base & { status: 'completed' | 'aborted' | 'dissolved' | 'failed'; reason: string });

export type LiveMatchState = Exclude<MatchState, { status: 'none' }>;

const TERMINAL = new Set(['completed', 'aborted', 'dissolved', 'failed']);
export const isMatchOver = (s: MatchState) => TERMINAL.has(s.status);

const lobbyIds = (s: { lobbies: MatchLobby[] }) => s.lobbies.map((l) => l.lobbyId);

function live(state: MatchState): LiveMatchState {
  if (state.status === 'none') throw new DomainError('not_found', 'match not found');
  return state;
}

function member(state: LiveMatchState, lobbyId: string): void {
  if (!state.lobbies.some((l) => l.lobbyId === lobbyId)) throw new DomainError('not_found', `lobby ${lobbyId} is not in match ${state.matchId}`);
}

/** A proposal names each lobby once and places each of their players exactly once (the engine keeps parties on one team). */
function checkProposal(p: MatchProposal): void {
  if (p.lobbies.length === 0) throw invalid('a match needs at least one lobby', ['proposal', 'lobbies']);
  const ids = lobbyIds(p);
  if (new Set(ids).size !== ids.length) throw invalid('a lobby appears twice in the match', ['proposal', 'lobbies']);
  const players = p.lobbies.flatMap((l) => l.players);
  const placed = p.teams.flat();
  if (new Set(players).size !== players.length) throw invalid('a player is in two lobbies of the match', ['proposal', 'lobbies']);
  if (placed.length !== players.length || new Set(placed).size !== placed.length || players.some((x) => !placed.includes(x))) {
    throw invalid('the teams must hold every player of the match exactly once', ['proposal', 'teams']);
  }
}

/** JSON with object keys sorted: a state read back from the store (PostgreSQL's jsonb reorders keys) compares equal. */
const canonical = (v: unknown): string => JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));
const sameProposal = (s: Base, p: MatchProposal) => canonical(pick(s)) === canonical(pick({ ...p, proposedAt: s.proposedAt }));
const CONFIRMED = new Set(['confirmed', 'server_requested', 'assigned', 'running']);

/**
 * A confirmed match asks for its server in the decision that confirmed it (formed without confirmation, the
 * last lobby confirmed, or the attempt before failed): one append, no workflow hop in between. RequestServer
 * stays for a match whose earlier events did not (stored before this was decided here).
 */
const serverRequested = (matchId: string, attempt: number, at: string): MatchServerRequested => ({ type: 'MatchServerRequested', data: { matchId, attempt, at } });

function decide(command: MatchCommand, state: MatchState): MatchEvent[] {
  const at = command.now;
  if (command.type === 'ProposeMatch') {
    const p = command.proposal;
    if (state.status !== 'none') {
      // The matcher's retry of the same proposal (its id comes from the proposal) is answered, not repeated.
      if (sameProposal(state, p)) return [];
      throw conflict(`match ${p.matchId} exists`);
    }
    checkProposal(p);
    return [{ type: 'MatchProposed', data: { ...p, at } }];
  }
  const s = live(state);
  const matchId = s.matchId;
  switch (command.type) {
    case 'ReserveLobby': {
      if ((s.status === 'assigned' || s.status === 'running') && s.fill?.lobby.lobbyId === command.lobbyId) {
        const { lobby, team } = s.fill;
        return [{ type: 'MatchFilled', data: { matchId, lobbyId: lobby.lobbyId, team, players: lobby.players, serverId: s.serverId, at } }];
      }
      const returned: MatchEvent[] = [{ type: 'MatchReservationReturned', data: { matchId, lobbyId: command.lobbyId, at } }];
      // A fill's lobby reserved after the fill was given up (not a member of the game): let it go.
      if ((s.status === 'assigned' || s.status === 'running') && !s.lobbies.some((l) => l.lobbyId === command.lobbyId)) return returned;
      member(s, command.lobbyId);
      if (s.status !== 'proposed') {
        // Reserved after the match fell through (a refusal raced this reservation): the lobby goes back.
        if (isMatchOver(s)) return returned;
        return []; // formed already: every lobby was reserved
      }
      if (s.reserved.includes(command.lobbyId)) return [];
      const events: MatchEvent[] = [{ type: 'MatchLobbyReserved', data: { matchId, lobbyId: command.lobbyId, at } }];
      if (s.reserved.length + 1 === s.lobbies.length) {
        const told = command.tellsLobbies ? { lobbiesTold: true } : {};
        if (s.requireConfirmation) {
          events.push({ type: 'MatchFormed', data: { matchId, confirmationDeadline: timeAfter(at, s.confirmationTimeoutMs), ...told, at } });
        } else {
          events.push({ type: 'MatchFormed', data: { matchId, confirmationDeadline: null, serverRequested: true, ...told, at } }, serverRequested(matchId, 1, at));
        }
      }
      return events;
    }
    case 'RefuseReservation':
      if ((s.status === 'assigned' || s.status === 'running') && s.fill?.lobby.lobbyId === command.lobbyId) {
        return [{ type: 'MatchFillAborted', data: { matchId, lobbyId: command.lobbyId, reason: command.reason, at } }];
      }
      member(s, command.lobbyId);
      if (s.status === 'aborted') return [];
      if (s.status !== 'proposed') throw conflict(`match ${matchId} is ${s.status}, not proposed`);
      return [{ type: 'MatchAborted', data: { matchId, reason: command.reason, release: s.reserved.filter((l) => l !== command.lobbyId), at } }];
    case 'ConfirmLobby': {
      member(s, command.lobbyId);
      if (s.status !== 'confirming') {
        if (s.requireConfirmation && CONFIRMED.has(s.status)) return []; // every lobby confirmed already
        throw conflict(`match ${matchId} is not waiting for confirmation`);
      }
      if (at > s.deadline) throw conflict('the confirmation deadline has passed');
      if (s.confirmed.includes(command.lobbyId)) return [];
      const events: MatchEvent[] = [{ type: 'MatchLobbyConfirmed', data: { matchId, lobbyId: command.lobbyId, at } }];
      if (s.confirmed.length + 1 === s.lobbies.length) events.push({ type: 'MatchConfirmed', data: { matchId, serverRequested: true, at } }, serverRequested(matchId, 1, at));
      return events;
    }
    case 'DeclineLobby':
      member(s, command.lobbyId);
      if (s.status !== 'confirming') return []; // before formation a leave fails the reservation; after confirmation it is LeaveMatch
      return [{ type: 'MatchDissolved', data: { matchId, reason: 'declined', requeue: s.confirmed.filter((l) => l !== command.lobbyId), release: lobbyIds(s).filter((l) => !s.confirmed.includes(l) || l === command.lobbyId), at } }];
    case 'ExpireConfirmation':
      // A timer set at the deadline; anything but a match still waiting past it is a stale timer.
      if (s.status !== 'confirming' || at < s.deadline) return [];
      return [{ type: 'MatchDissolved', data: { matchId, reason: 'confirmation_timeout', requeue: [...s.confirmed], release: lobbyIds(s).filter((l) => !s.confirmed.includes(l)), at } }];
    case 'RequestServer':
      if (s.status === 'server_requested' || s.status === 'assigned' || s.status === 'running') return [];
      if (s.status !== 'confirmed') throw conflict(`match ${matchId} is ${s.status}; a server is requested once it is confirmed`);
      return [serverRequested(matchId, s.attempts + 1, at)];
    case 'FailServerStart':
      // Only the attempt in flight fails; a late report of an earlier one changes nothing.
      if (s.status !== 'server_requested' || s.attempts !== command.attempt) return [];
      if (command.attempt >= MAX_MATCH_SERVER_ATTEMPTS) return [{ type: 'MatchFailed', data: { matchId, error: command.error, lobbies: lobbyIds(s), at } }];
      return [
        { type: 'MatchServerStartFailed', data: { matchId, attempt: command.attempt, error: command.error, serverRequested: true, at } },
        serverRequested(matchId, command.attempt + 1, at),
      ];
    case 'AssignServer':
      if (s.status === 'assigned' || s.status === 'running') {
        if (s.serverId === command.serverId) return [];
        throw conflict(`match ${matchId} has server ${s.serverId}`);
      }
      if (s.status !== 'server_requested') throw conflict(`match ${matchId} is ${s.status}, not waiting for a server`);
      return [{ type: 'MatchServerAssigned', data: { matchId, serverId: command.serverId, ...(command.server ? { server: command.server } : {}), at } }];
    case 'MarkServerRunning':
      if (s.status === 'running' && s.serverId === command.serverId) return [];
      if (s.status !== 'assigned' || s.serverId !== command.serverId) throw conflict(`match ${matchId} is ${s.status}${'serverId' in s ? ` on ${s.serverId}` : ''}`);
      return [{ type: 'MatchRunning', data: { matchId, serverId: command.serverId, at } }];
    case 'LeaveMatch': {
      member(s, command.lobbyId);
      if (s.status !== 'assigned' && s.status !== 'running') return [];
      if (s.left.includes(command.lobbyId)) return [];
      const events: MatchEvent[] = [{ type: 'MatchLobbyLeft', data: { matchId, lobbyId: command.lobbyId, at } }];
      if (s.left.length + 1 === s.lobbies.length) {
        events.push({ type: 'MatchCompleted', data: { matchId, reason: 'all_left', serverId: s.serverId, remaining: [], stopServer: true, at } });
      }
      return events;
    }
    case 'DropLobby': {
      member(s, command.lobbyId);
      const others = (ids: string[]) => ids.filter((l) => l !== command.lobbyId);
      switch (s.status) {
        case 'proposed':
          return [{ type: 'MatchAborted', data: { matchId, reason: command.reason, release: others(s.reserved), at } }];
        case 'confirming':
          return decide({ type: 'DeclineLobby', lobbyId: command.lobbyId, reason: 'left', now: at }, s);
        case 'confirmed':
        case 'server_requested':
          return [{ type: 'MatchAborted', data: { matchId, reason: command.reason, release: others(lobbyIds(s)), at } }];
        case 'assigned':
        case 'running':
          return decide({ type: 'LeaveMatch', lobbyId: command.lobbyId, now: at }, s);
        default:
          return [];
      }
    }
    case 'ProposeFill': {
      if (s.status !== 'assigned' && s.status !== 'running') throw conflict(`match ${matchId} is ${s.status}, not in a game`);
      if (!s.allowBackfill) throw conflict(`match ${matchId}: its mode has no engine-managed backfill`);
      if (s.locked) throw conflict(`match ${matchId}: the game locked its roster`);
      if (s.fill) {
        if (s.fill.lobby.lobbyId === command.lobby.lobbyId) return [];
        throw conflict(`match ${matchId} has a fill in flight`);
      }
      if (s.lobbies.some((l) => l.lobbyId === command.lobby.lobbyId)) throw conflict(`lobby ${command.lobby.lobbyId} is in match ${matchId} already`);
      const free = freeSlots(s);
      if (command.team < 0 || command.team >= free.length || command.lobby.players.length > free[command.team]) {
        throw conflict(`team ${command.team} of match ${matchId} has ${free[command.team] ?? 0} free slot(s), not ${command.lobby.players.length}`);
      }
      return [{ type: 'MatchFillProposed', data: { matchId, lobby: command.lobby, team: command.team, at } }];
    }
    case 'SetBackfillAccepting': {
      // Outside a game there is nothing to lock (the backfill record answers for a stopped server).
      if (s.status !== 'assigned' && s.status !== 'running') return [];
      if (!s.locked === command.accepting) return [];
      const events: MatchEvent[] = [];
      if (!command.accepting && s.fill) events.push({ type: 'MatchFillAborted', data: { matchId, lobbyId: s.fill.lobby.lobbyId, reason: 'backfill_locked', at } });
      events.push({ type: 'MatchBackfillAccepting', data: { matchId, accepting: command.accepting, at } });
      return events;
    }
    case 'ServerStopped':
      if ((s.status !== 'assigned' && s.status !== 'running') || s.serverId !== command.serverId) return [];
      return [{ type: 'MatchCompleted', data: { matchId, reason: 'server_stopped', serverId: s.serverId, remaining: lobbyIds(s).filter((l) => !s.left.includes(l)), stopServer: false, at } }];
    case 'AbortMatch':
      if (s.status !== 'proposed') return [];
      return [{ type: 'MatchAborted', data: { matchId, reason: command.reason, release: [...s.reserved], at } }];
  }
}

function evolve(state: MatchState, event: MatchEvent): MatchState {
  if (event.type === 'MatchProposed') {
    const { at, ...proposal } = event.data;
    return { ...proposal, proposedAt: at, status: 'proposed', reserved: [] };
  }
  if (state.status === 'none') return state;
  const base = pick(state);
  switch (event.type) {
    case 'MatchLobbyReserved':
      return state.status === 'proposed' ? { ...state, reserved: [...state.reserved, event.data.lobbyId] } : state;
    case 'MatchFormed':
      return event.data.confirmationDeadline
        ? { ...base, status: 'confirming', confirmed: [], deadline: event.data.confirmationDeadline }
        : { ...base, status: 'confirmed', attempts: 0, lastError: null };
    case 'MatchLobbyConfirmed':
      return state.status === 'confirming' ? { ...state, confirmed: [...state.confirmed, event.data.lobbyId] } : state;
    case 'MatchConfirmed':
      return { ...base, status: 'confirmed', attempts: 0, lastError: null };
    case 'MatchServerRequested':
      return { ...base, status: 'server_requested', attempts: event.data.attempt };
    case 'MatchServerStartFailed':
      return { ...base, status: 'confirmed', attempts: event.data.attempt, lastError: event.data.error };
    case 'MatchServerAssigned':
      return { ...base, status: 'assigned', serverId: event.data.serverId, left: [] };
    case 'MatchRunning':
      return state.status === 'assigned' ? { ...state, status: 'running' } : state;
    case 'MatchLobbyLeft': {
      if (state.status !== 'assigned' && state.status !== 'running') return state;
      // Its players leave their team: their slots are free (a fill may take them).
      const gone = new Set(state.lobbies.find((l) => l.lobbyId === event.data.lobbyId)?.players ?? []);
      return { ...state, left: [...state.left, event.data.lobbyId], teams: state.teams.map((t) => t.filter((p) => !gone.has(p))) };
    }
    case 'MatchFillProposed':
      return state.status === 'assigned' || state.status === 'running' ? { ...state, fill: { lobby: event.data.lobby, team: event.data.team } } : state;
    case 'MatchFilled':
      if (state.status !== 'assigned' && state.status !== 'running') return state;
      return {
        ...state, fill: null,
        lobbies: [...state.lobbies, state.fill?.lobby ?? { lobbyId: event.data.lobbyId, ticket: 0, players: event.data.players, rating: 0, queuedAt: event.data.at }],
        teams: state.teams.map((t, i) => (i === event.data.team ? [...t, ...event.data.players] : t)),
      };
    case 'MatchFillAborted':
      return state.status === 'assigned' || state.status === 'running' ? { ...state, fill: null } : state;
    case 'MatchReservationReturned':
      return state;
    case 'MatchBackfillAccepting':
      return state.status === 'assigned' || state.status === 'running' ? { ...state, locked: !event.data.accepting } : state;
    case 'MatchAborted':
      return { ...base, status: 'aborted', reason: event.data.reason };
    case 'MatchDissolved':
      return { ...base, status: 'dissolved', reason: event.data.reason };
    case 'MatchFailed':
      return { ...base, status: 'failed', reason: event.data.error };
    case 'MatchCompleted':
      return { ...base, status: 'completed', reason: event.data.reason };
  }
}

/** The proposal part of a state (what every status keeps). */
function pick(s: Base): Base {
  const { matchId, projectId, config, mode, region, lobbies, teams, requireConfirmation, confirmationTimeoutMs, proposedAt, allowBackfill, playersPerTeam } = s;
  return {
    matchId, projectId, config, mode, region, lobbies, teams, requireConfirmation, confirmationTimeoutMs, proposedAt,
    ...(allowBackfill !== undefined ? { allowBackfill } : {}), ...(playersPerTeam !== undefined ? { playersPerTeam } : {}),
  };
}

/** Free slots per team of a game (playersPerTeam minus the players in it; a fill in flight holds its slots). */
export function freeSlots(s: Base & { fill?: { lobby: MatchLobby; team: number } | null }): number[] {
  const size = s.playersPerTeam ?? 0;
  return s.teams.map((t, i) => Math.max(0, size - t.length - (s.fill && s.fill.team === i ? s.fill.lobby.players.length : 0)));
}

export const matchDecider: Decider<MatchCommand, MatchEvent, MatchState> = { initialState: { status: 'none' }, decide, evolve };
