// Asymmetric role modes (decisions.md "Matchmaking"): `roles: {<role>: {count, field}}` replaces
// teams × playersPerTeam. Every one of the mode's `teams` teams holds exactly `count` players of each role
// (playersPerTeam is the sum of the counts). A player's role is the first role of the mode (in the mode's
// order) whose slot `field` (default `role`) holds that role's name in the player's state: `state.role ===
// "tank"` makes a tank. A player without one cannot be placed, so neither can their lobby (a lobby is one
// party: its players always share a team, so it may not ask for more of a role than a team holds).
//
// Only full matches form in role modes: a short start (minPlayersPerTeam) would have to say which roles
// may go missing, and the mode does not say it. So minPlayersPerTeam is ignored for role modes.
//
// Placing parties on teams is a small exact search (parties of two or more players only: solo players
// always fit once every role's total fits, each takes one free slot of its role on any team); balancing
// is greedy (heaviest first into the team with the lowest rating sum that has the slots), then swaps of
// parties of the same role make-up between teams while they narrow the spread: even sums as far as the
// roles allow, not an optimum.
import { MatchmakingMode } from './mode';

export interface RoleTable {
  /** Role names in the mode's order. */
  names: string[];
  /** Players of each role per team. */
  counts: Int32Array;
  /** The state key each role is read from. */
  fields: string[];
  /** When every role reads the same field: that field (one read and a lookup per player). */
  single: string | null;
  index: Map<string, number>;
}

export function roleTable(mode: MatchmakingMode): RoleTable | null {
  if (!mode.roles) return null;
  const entries = Object.entries(mode.roles);
  const fields = entries.map(([, slot]) => slot.field);
  return {
    names: entries.map(([name]) => name),
    counts: Int32Array.from(entries, ([, slot]) => slot.count),
    fields,
    single: fields.every((f) => f === fields[0]) ? (fields[0] ?? null) : null,
    index: new Map(entries.map(([name], i) => [name, i])),
  };
}

/** The player's role (its index in the table), or -1 when they have none the mode knows. */
export function roleOf(table: RoleTable, state: Record<string, unknown>): number {
  if (table.single !== null) {
    const v = state[table.single];
    return typeof v === 'string' ? (table.index.get(v) ?? -1) : -1;
  }
  for (let r = 0; r < table.names.length; r++) if (state[table.fields[r]] === table.names[r]) return r;
  return -1;
}

/**
 * The lobby's players per role into `vec` (length: the roles), and whether a team can take the lobby:
 * every player has a role, and no role is asked for more often than a team holds it.
 */
export function roleVector(table: RoleTable, players: { state: Record<string, unknown> }[], vec: Int32Array): boolean {
  vec.fill(0);
  let ok = true;
  for (let i = 0; i < players.length; i++) {
    const r = roleOf(table, players[i].state);
    if (r < 0) ok = false;
    else if (++vec[r] > table.counts[r]) ok = false;
  }
  return ok;
}

/** Whether a team can take the lobby (roleVector's answer, without keeping the vector). */
export function rolesFit(table: RoleTable, players: { state: Record<string, unknown> }[]): boolean {
  return roleVector(table, players, new Int32Array(table.names.length));
}

export interface RoleProblems {
  /** Players without a role the mode has. */
  missing: string[];
  /** Roles the lobby asks for more often than a team holds them. */
  full: { role: string; count: number }[];
}

/** What keeps the lobby out of every match of a role mode (explain's role_missing and role_full). */
export function roleProblems(table: RoleTable, players: { id: string; state: Record<string, unknown> }[]): RoleProblems {
  const vec = new Int32Array(table.names.length);
  const missing: string[] = [];
  for (const p of players) {
    const r = roleOf(table, p.state);
    if (r < 0) missing.push(p.id);
    else vec[r]++;
  }
  const full: RoleProblems['full'] = [];
  for (let r = 0; r < vec.length; r++) if (vec[r] > table.counts[r]) full.push({ role: table.names[r], count: table.counts[r] });
  return { missing, full };
}

/** Above this many placements tried, parties are taken not to fit (a bound on a step; never reached by real modes). */
export const MAX_PLACEMENTS = 5_000;

/**
 * Scratch for placeParties and planRoleTeams (one per caller). Parties 0..n-1 are given by their role
 * vector, size, weight (rating × size) and id; the result is `team[i]` for each party.
 */
export class RoleWork {
  readonly R: number;
  /** Players of role r on team t: used[t * R + r]. */
  used: Int32Array;
  sizes: Int32Array;
  sums: Float64Array;
  team = new Int32Array(0);
  order = new Int32Array(0);
  /** Per depth of the search: the teams in the order tried. */
  tries = new Int32Array(0);
  private nodes = 0;

  constructor(readonly table: RoleTable, readonly teams: number) {
    this.R = table.names.length;
    this.used = new Int32Array(teams * this.R);
    this.sizes = new Int32Array(teams);
    this.sums = new Float64Array(teams);
  }

  private ensure(n: number): void {
    if (this.team.length >= n) return;
    this.team = new Int32Array(n);
    this.order = new Int32Array(n);
    this.tries = new Int32Array((n + 1) * this.teams);
  }

  private fits(t: number, v: Int32Array): boolean {
    const { R, used } = this;
    const { counts } = this.table;
    for (let r = 0; r < R; r++) if (v[r] !== 0 && used[t * R + r] + v[r] > counts[r]) return false;
    return true;
  }

  private put(t: number, v: Int32Array, size: number, weight: number, by: 1 | -1): void {
    const { R, used } = this;
    for (let r = 0; r < R; r++) used[t * R + r] += by * v[r];
    this.sizes[t] += by * size;
    this.sums[t] += by * weight;
  }

  /**
   * Places the parties of two or more players (in the order size descending, weight descending, id), each
   * on a team with free slots for all its roles: an exhaustive search (teams tried lowest rating sum first,
   * fewer players, lower index; of the empty teams only the first), so it fails only when no placement
   * exists (or MAX_PLACEMENTS are tried). The solo players are left out (team -1); the caller makes sure
   * every role's total fits. The placement is in `team`, the teams' role use, sizes and sums in the rest.
   */
  placeParties(n: number, vecs: Int32Array[], size: ArrayLike<number>, weight: ArrayLike<number>, id: ArrayLike<string>): boolean {
    this.ensure(n);
    const { order, team } = this;
    this.used.fill(0);
    this.sizes.fill(0);
    this.sums.fill(0);
    let m = 0;
    for (let i = 0; i < n; i++) {
      team[i] = -1;
      if (size[i] > 1) order[m++] = i;
    }
    sortParties(order, m, size, weight, id);
    this.nodes = 0;
    return this.search(0, m, vecs, size, weight);
  }

  private search(k: number, m: number, vecs: Int32Array[], size: ArrayLike<number>, weight: ArrayLike<number>): boolean {
    if (k === m) return true;
    if (++this.nodes > MAX_PLACEMENTS) return false;
    const { teams, sizes, sums, tries, team } = this;
    const p = this.order[k];
    const base = k * teams;
    // The teams by sum, then size, then index (insertion sort: a handful).
    for (let t = 0; t < teams; t++) {
      let j = t - 1;
      for (; j >= 0; j--) {
        const u = tries[base + j];
        if (sums[u] < sums[t] || (sums[u] === sums[t] && sizes[u] <= sizes[t])) break;
        tries[base + j + 1] = u;
      }
      tries[base + j + 1] = t;
    }
    let emptyTried = false;
    for (let j = 0; j < teams; j++) {
      const t = tries[base + j];
      if (sizes[t] === 0) {
        if (emptyTried) continue;
        emptyTried = true;
      }
      if (!this.fits(t, vecs[p])) continue;
      this.put(t, vecs[p], size[p], weight[p], 1);
      team[p] = t;
      if (this.search(k + 1, m, vecs, size, weight)) return true;
      this.put(t, vecs[p], size[p], weight[p], -1);
      team[p] = -1;
      if (this.nodes > MAX_PLACEMENTS) return false;
    }
    return false;
  }

  /**
   * Balanced teams for the parties (every role's total at most teams × its count): the parties as
   * placeParties places them, then the solo players heaviest first into the team with the lowest sum that
   * has a free slot of their role, then swaps of two parties of the same role make-up between two teams
   * while one narrows the spread of the sums. False when the parties cannot be placed.
   */
  planRoleTeams(n: number, vecs: Int32Array[], size: ArrayLike<number>, weight: ArrayLike<number>, id: ArrayLike<string>): boolean {
    if (!this.placeParties(n, vecs, size, weight, id)) return false;
    const { order, team, teams, sizes, sums, R, used } = this;
    const { counts } = this.table;
    let m = 0;
    for (let i = 0; i < n; i++) if (size[i] === 1) order[m++] = i;
    sortParties(order, m, size, weight, id);
    for (let k = 0; k < m; k++) {
      const p = order[k];
      let r = 0;
      while (vecs[p][r] === 0) r++;
      let best = -1;
      for (let t = 0; t < teams; t++) {
        if (used[t * R + r] >= counts[r]) continue;
        if (best < 0 || sums[t] < sums[best] || (sums[t] === sums[best] && sizes[t] < sizes[best])) best = t;
      }
      if (best < 0) return false;
      this.put(best, vecs[p], 1, weight[p], 1);
      team[p] = best;
    }
    // Swaps of parties of the same role make-up (every team's role use unchanged).
    for (let improved = teams > 1 && n > 2, rounds = 0; improved && rounds < 50; rounds++) {
      improved = false;
      const before = spread(sums, teams);
      for (let x = 0; x < n && !improved; x++) {
        const a = team[x];
        if (a < 0) continue;
        for (let y = 0; y < n; y++) {
          const b = team[y];
          if (b <= a || size[y] !== size[x] || !sameVector(vecs[x], vecs[y])) continue;
          const gap = Math.abs(sums[a] - sums[b]);
          if (!(Math.abs((sums[a] - weight[x] + weight[y]) - (sums[b] - weight[y] + weight[x])) < gap)) continue;
          const na = sums[a] + (weight[y] - weight[x]);
          const nb = sums[b] + (weight[x] - weight[y]);
          let max = Number.NEGATIVE_INFINITY;
          let min = Number.POSITIVE_INFINITY;
          for (let t = 0; t < teams; t++) {
            const s = t === a ? na : t === b ? nb : sums[t];
            if (s > max) max = s;
            if (s < min) min = s;
          }
          if (!(max - min < before)) continue;
          team[x] = b;
          team[y] = a;
          sums[a] = na;
          sums[b] = nb;
          improved = true;
          break;
        }
      }
    }
    return true;
  }
}

/** Code-unit order of ids (as the step's). */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** order[0..m): size descending, weight descending, then id (insertion sort, stable). */
function sortParties(order: Int32Array, m: number, size: ArrayLike<number>, weight: ArrayLike<number>, id: ArrayLike<string>): void {
  for (let i = 1; i < m; i++) {
    const v = order[i];
    let j = i - 1;
    for (; j >= 0; j--) {
      const u = order[j];
      const c = size[v] - size[u] || weight[v] - weight[u] || cmp(id[u], id[v]);
      if (!(c > 0)) break;
      order[j + 1] = u;
    }
    order[j + 1] = v;
  }
}

function sameVector(a: Int32Array, b: Int32Array): boolean {
  for (let r = 0; r < a.length; r++) if (a[r] !== b[r]) return false;
  return true;
}

function spread(sums: Float64Array, teams: number): number {
  let max = sums[0];
  let min = sums[0];
  for (let t = 1; t < teams; t++) {
    if (sums[t] > max) max = sums[t];
    if (sums[t] < min) min = sums[t];
  }
  return max - min;
}
