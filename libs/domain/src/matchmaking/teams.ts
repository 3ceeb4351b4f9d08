// Balanced teams (decisions.md): parties (lobbies) stay whole, every team gets at most playersPerTeam
// players, and the teams' rating sums are as even as possible. Largest parties first into the team with
// the lowest sum that has room, then swaps of equal-sized parties between teams while they narrow the
// spread (exact for 1v1 and pairs; close for the rest, and fast enough for a tick over many matches).
// `partiesFit` answers only whether balanceTeams would place the parties (its first pass, without the
// swaps and without building the plan): the matching step asks it once per candidate.

export interface Party { id: string; size: number; rating: number }

export interface TeamPlan {
  /** Party ids per team. */
  teams: string[][];
  /** Sum of player ratings per team (rating × size of each party). */
  sums: number[];
}

/** Scratch for planTeams, grown as needed (one per caller: it is overwritten by every call). */
export class TeamWork {
  n = 0;
  teams = 0;
  order = new Int32Array(0);
  weights = new Float64Array(0);
  /** Team t's parties (indices) are members[t * n + j] for j < count[t]. */
  members = new Int32Array(0);
  count = new Int32Array(0);
  sizes = new Int32Array(0);
  sums = new Float64Array(0);

  ensure(n: number, teams: number): void {
    this.n = n;
    this.teams = teams;
    if (this.order.length < n) {
      this.order = new Int32Array(n);
      this.weights = new Float64Array(n);
    }
    if (this.members.length < n * teams) this.members = new Int32Array(n * teams);
    if (this.count.length < teams) {
      this.count = new Int32Array(teams);
      this.sizes = new Int32Array(teams);
      this.sums = new Float64Array(teams);
    }
  }
}

/** Lower-case ASCII letters, digits and '-' only (lobby ids as generated: UUIDs, numbered ids). */
function plain(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45)) return false;
  }
  return true;
}

/**
 * Whether the default collation (String.prototype.localeCompare without arguments) orders plain strings
 * as their code units: so in English and the root order ('-' before digits before letters, no
 * contractions among them), checked once here on the characters themselves. Other locales (whose
 * tailorings may reorder letters or join them, as Czech "ch") always ask localeCompare.
 */
const PLAIN_IN_CODE_ORDER = (() => {
  const locale = new Intl.Collator().resolvedOptions().locale;
  if (!/^(en|und)(-|$)/.test(locale)) return false;
  const chars = '-0123456789abcdefghijklmnopqrstuvwxyz';
  for (let i = 1; i < chars.length; i++) {
    if (!(chars[i - 1].localeCompare(chars[i]) < 0)) return false;
    if (!(`a${chars[i - 1]}z`.localeCompare(`a${chars[i]}`) < 0)) return false;
  }
  return 'a'.localeCompare('a-') < 0 && 'a-b'.localeCompare('ab') < 0;
})();

/** The sign of a.localeCompare(b), without ICU for plain ids (localeCompare costs ~150 ns a call). */
function localeOrder(a: string, b: string): number {
  if (PLAIN_IN_CODE_ORDER && plain(a) && plain(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}

/**
 * balanceTeams over parties 0..n-1 given by size, rating and id (`alias[i]`: the first index of the same
 * party when one is given twice, else null): false when they do not fit, else the plan is in `work`
 * (members, count, sums). The matching step calls it without building Party objects.
 */
export function planTeams(
  n: number, size: ArrayLike<number>, rating: ArrayLike<number>, id: ArrayLike<string>, alias: Int32Array | null,
  teams: number, playersPerTeam: number, work: TeamWork,
): boolean {
  work.ensure(n, teams);
  const { order, weights: w, members, count, sizes, sums } = work;
  for (let i = 0; i < n; i++) {
    order[i] = i;
    w[i] = rating[i] * size[i];
  }
  // Largest first, then heaviest, then by id (a stable sort, as Array.prototype.sort is).
  for (let i = 1; i < n; i++) {
    const v = order[i];
    let j = i - 1;
    for (; j >= 0; j--) {
      const u = order[j];
      const c = size[v] - size[u] || w[v] - w[u] || localeOrder(id[u], id[v]);
      if (c <= 0) break;
      order[j + 1] = u;
    }
    order[j + 1] = v;
  }
  for (let t = 0; t < teams; t++) {
    count[t] = 0;
    sizes[t] = 0;
    sums[t] = 0;
  }
  for (let i = 0; i < n; i++) {
    const p = order[i];
    let best = -1;
    for (let t = 0; t < teams; t++) {
      if (sizes[t] + size[p] > playersPerTeam) continue;
      if (best < 0 || sums[t] < sums[best] || (sums[t] === sums[best] && sizes[t] < sizes[best])) best = t;
    }
    if (best < 0) return false;
    members[best * n + count[best]++] = p;
    sizes[best] += size[p];
    sums[best] += w[p];
  }
  // Swaps of equal-sized parties (team sizes unchanged) while one narrows the spread.
  for (let improved = teams > 1 && n > 2, rounds = 0; improved && rounds < 50; rounds++) {
    improved = false;
    const before = spread(sums, teams);
    for (let a = 0; a < teams && !improved; a++) {
      for (let b = a + 1; b < teams && !improved; b++) {
        for (let i = 0; i < count[a]; i++) {
          const x = members[a * n + i];
          const gap = Math.abs(sums[a] - sums[b]);
          let y = -1;
          for (let j = 0; j < count[b]; j++) {
            const c = members[b * n + j];
            if (size[c] === size[x] && Math.abs((sums[a] - w[x] + w[c]) - (sums[b] - w[c] + w[x])) < gap) {
              y = c;
              break;
            }
          }
          if (y < 0) continue;
          const na = sums[a] + (w[y] - w[x]);
          const nb = sums[b] + (w[x] - w[y]);
          let max = Number.NEGATIVE_INFINITY;
          let min = Number.POSITIVE_INFINITY;
          for (let t = 0; t < teams; t++) {
            const s = t === a ? na : t === b ? nb : sums[t];
            if (s > max) max = s;
            if (s < min) min = s;
          }
          if (max - min >= before) continue;
          // The same party given twice moves with every copy (balanceTeams replaces by identity).
          const ax = alias ? alias[x] : x;
          const ay = alias ? alias[y] : y;
          for (let k = 0; k < count[a]; k++) if ((alias ? alias[members[a * n + k]] : members[a * n + k]) === ax) members[a * n + k] = y;
          for (let k = 0; k < count[b]; k++) if ((alias ? alias[members[b * n + k]] : members[b * n + k]) === ay) members[b * n + k] = x;
          sums[a] = na;
          sums[b] = nb;
          improved = true;
          break;
        }
      }
    }
  }
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

/** Null when the parties do not fit (a party larger than a team, or more players than the match holds). */
export function balanceTeams(parties: Party[], teams: number, playersPerTeam: number): TeamPlan | null {
  const n = parties.length;
  let alias: Int32Array | null = null;
  const seen = new Map<Party, number>();
  for (let i = 0; i < n; i++) {
    const first = seen.get(parties[i]);
    if (first === undefined) seen.set(parties[i], i);
    else (alias ??= Int32Array.from({ length: n }, (_, k) => k))[i] = first;
  }
  const work = new TeamWork();
  if (!planTeams(n, parties.map((p) => p.size), parties.map((p) => p.rating), parties.map((p) => p.id), alias, teams, playersPerTeam, work)) return null;
  const plan: TeamPlan = { teams: [], sums: [] };
  for (let t = 0; t < teams; t++) {
    const ids: string[] = [];
    for (let j = 0; j < work.count[t]; j++) ids.push(parties[work.members[t * n + j]].id);
    plan.teams.push(ids);
    plan.sums.push(work.sums[t]);
  }
  return plan;
}

/**
 * Whether balanceTeams places these parties (is not null), from their sizes and weights (rating × size)
 * only: the same first pass, largest parties first (heavier first among equal sizes: which of two equal
 * parties goes first does not change where sizes and sums go), into the team with the lowest sum that has
 * room. `sizes` and `weights` are read in [0, count) and reordered in place; `teamSizes`/`teamSums` are
 * scratch of at least `teams` slots.
 */
export function partiesFit(
  sizes: Int32Array | number[], weights: Float64Array | number[], count: number, teams: number, playersPerTeam: number,
  teamSizes: Int32Array | number[], teamSums: Float64Array | number[],
): boolean {
  // Insertion sort: size descending, then weight descending (a handful of parties).
  for (let i = 1; i < count; i++) {
    const s = sizes[i];
    const w = weights[i];
    let j = i - 1;
    while (j >= 0 && (sizes[j] < s || (sizes[j] === s && weights[j] < w))) {
      sizes[j + 1] = sizes[j];
      weights[j + 1] = weights[j];
      j--;
    }
    sizes[j + 1] = s;
    weights[j + 1] = w;
  }
  for (let t = 0; t < teams; t++) {
    teamSizes[t] = 0;
    teamSums[t] = 0;
  }
  for (let i = 0; i < count; i++) {
    const s = sizes[i];
    let best = -1;
    for (let t = 0; t < teams; t++) {
      if (teamSizes[t] + s > playersPerTeam) continue;
      if (best < 0 || teamSums[t] < teamSums[best] || (teamSums[t] === teamSums[best] && teamSizes[t] < teamSizes[best])) best = t;
    }
    if (best < 0) return false;
    teamSizes[best] += s;
    teamSums[best] += weights[i];
  }
  return true;
}
