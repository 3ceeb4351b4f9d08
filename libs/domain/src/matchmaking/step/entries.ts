// What a step reads of a mode (Prepared) and of a ticket (Entry), once: entryOf reduces a ticket to numbers
// and precomputed keys, so the walk never goes back to the ticket (MatchQueue keeps entries between steps).
import { MatchmakingMode } from '../mode';
import { DEFAULT_RATING, DifferenceRule } from '../rating';
import { lobbyRegions } from '../region';
import { RoleTable, roleTable, roleVector } from '../roles';
import type { MatchLobby } from '../match';

export interface Ticket {
  lobbyId: string;
  /** The lobby stream's revision of this ticket (a reservation holds only at it). */
  ticket: number;
  region: string;
  queuedAt: string;
  players: { id: string; state: Record<string, unknown> }[];
}

export interface QueueKey { projectId: string; config: string }

export type MatchIdOf = (lobbies: MatchLobby[]) => string;

/** Most lobbies a match step looks at for one anchor: a step stays bounded however the queue looks. */
export const MAX_LOOKED_AT = 2_000;

/** What a step reads from the mode, once. */
export interface Prepared {
  mode: MatchmakingMode;
  rule: DifferenceRule | null;
  latency: boolean;
  equalFields: string[];
  full: number;
  /** Role modes: the roles (roles.ts); null otherwise. */
  roles: RoleTable | null;
}

export function prepare(mode: MatchmakingMode): Prepared {
  return {
    mode,
    rule: mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null,
    latency: mode.rules.some((r) => r.type === 'latency'),
    equalFields: mode.rules.flatMap((r) => (r.type === 'equal' ? [r.field] : [])),
    full: mode.teams * mode.playersPerTeam,
    roles: roleTable(mode),
  };
}

/** A queued ticket as the step reads it. */
export interface Entry {
  t: Ticket;
  /** t.lobbyId. */
  id: string;
  /**
   * The players' ids, read once per ticket (while the tickets are read in order): a proposal's lobby holds
   * this very array (nothing changes it), and a step does not go back to the players for them.
   */
  pids: string | string[];
  rating: number;
  /** Date.parse(t.queuedAt). */
  queuedMs: number;
  /** t.queuedAt is in the canonical ISO form (toISOString's): its string order is its time order. */
  canon: boolean;
  size: number;
  /** The regions it can play in (latency modes only). */
  regions: string[] | null;
  /** The players' values of the `equal` fields when they all agree (null when they do not; '' without equal rules). */
  eq: string | null;
  /** Role modes: its players per role (null otherwise). */
  roles: Int32Array | null;
  /** Role modes: every player has a role of the mode, none asked for more often than a team holds it (true otherwise). */
  roleOk: boolean;
  /** Queue order (the order formMatches would be given the tickets in). */
  seq: number;
  /** Scratch: the index in this step's rating order. */
  ri: number;
  /** MatchQueue's bookkeeping. */
  state: number;
}

/** Code-unit order (ISO times, ids): localeCompare is many times slower and not needed here. */
export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** Where each character of YYYY-MM-DDTHH:MM:SS.sssZ must be a digit (0) or this character. */
const SHAPE = Array.from('0000-00-00T00:00:00.000Z', (c) => (c === '0' ? 0 : c.charCodeAt(0)));

/**
 * The time of a canonical ISO string (toISOString's form, naming a real instant: Date.parse would roll
 * Feb 30 and 24:00 over, those are not canonical), or NaN for any other string. Its string order is its
 * time order, and it is what Date.parse gives (read here without Date.parse, which costs more than the
 * rest of a ticket).
 */
function canonicalTime(s: string): number {
  if (s.length !== 24) return Number.NaN;
  for (let i = 0; i < 24; i++) {
    const c = s.charCodeAt(i);
    if (SHAPE[i] === 0 ? c < 48 || c > 57 : c !== SHAPE[i]) return Number.NaN;
  }
  const two = (i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
  const year = two(0) * 100 + two(2);
  const month = two(5);
  const day = two(8);
  const hour = two(11);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && leap ? 29 : DAYS[month - 1]) || hour > 23) return Number.NaN;
  // Days from 1970-01-01 of the proleptic Gregorian date (H. Hinnant's days_from_civil).
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  return days * 86_400_000 + hour * 3_600_000 + two(14) * 60_000 + two(17) * 1000 + two(20) * 10 + s.charCodeAt(22) - 48;
}

/** lobbyRating, in one loop (the same sum, in the same order). */
function ratingOf(players: Ticket['players'], field: string): number {
  if (players.length === 0) return DEFAULT_RATING;
  let sum = 0;
  for (let i = 0; i < players.length; i++) {
    const v = players[i].state[field];
    sum += typeof v === 'number' && Number.isFinite(v) ? v : DEFAULT_RATING;
  }
  return sum / players.length;
}

function equalKey(fields: string[], players: Ticket['players']): string | null {
  if (fields.length === 0) return '';
  let key = '';
  for (let f = 0; f < fields.length; f++) {
    let value: string | undefined;
    for (let i = 0; i < players.length; i++) {
      const v = JSON.stringify(players[i].state[fields[f]] ?? null);
      if (i === 0) value = v;
      else if (v !== value) return null;
    }
    // JSON text never holds a raw NUL: the joined key is one-to-one.
    key += f === 0 ? `${value}` : `\u0000${value}`;
  }
  return key;
}

/** Parties the mode never matches: empty, above maxPartySize or larger than a team. */
export const eligible = (p: Prepared, size: number) => size > 0 && size <= p.mode.maxPartySize && size <= p.mode.playersPerTeam;

/** A lobby the mode can ever match: eligible, and (role modes) its players' roles fit a team. */
export const takes = (p: Prepared, e: Entry) => e.roleOk && eligible(p, e.size);

export function entryOf(p: Prepared, t: Ticket, seq: number): Entry {
  const canon = canonicalTime(t.queuedAt);
  let roles: Int32Array | null = null;
  let roleOk = true;
  if (p.roles) {
    roles = new Int32Array(p.roles.names.length);
    roleOk = roleVector(p.roles, t.players, roles);
  }
  return {
    t,
    id: t.lobbyId,
    pids: playerIds(t.players),
    rating: p.rule ? ratingOf(t.players, p.rule.field) : DEFAULT_RATING,
    queuedMs: Number.isNaN(canon) ? Date.parse(t.queuedAt) : canon,
    canon: !Number.isNaN(canon),
    size: t.players.length,
    regions: p.latency ? lobbyRegions(p.mode, t) : null,
    eq: equalKey(p.equalFields, t.players),
    roles,
    roleOk,
    seq,
    ri: 0,
    state: 0,
  };
}

/**
 * The players' ids as an entry keeps them (Entry.pids): a solo lobby's id itself, else an array of exactly
 * their number (an empty array grown by push holds 17 slots).
 */
function playerIds(players: Ticket['players']): string | string[] {
  const n = players.length;
  if (n === 1) return players[0].id;
  if (n === 2) return [players[0].id, players[1].id];
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = players[i].id;
  return out;
}

/** A proposal's lobby's players: the entry's own array (a new one for a solo lobby). */
export const lobbyPlayers = (e: Entry): string[] => (typeof e.pids === 'string' ? [e.pids] : e.pids);

/** Copies ids into `into` from `at`; where the next ones go. */
export function copyIds(ids: string | string[], into: string[], at: number): number {
  if (typeof ids === 'string') into[at++] = ids;
  else for (let i = 0; i < ids.length; i++) into[at++] = ids[i];
  return at;
}
