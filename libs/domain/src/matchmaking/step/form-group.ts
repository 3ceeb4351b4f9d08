// The walk that forms a group's matches (formInGroup): outward from each anchor's rating, jumping over the
// party sizes that cannot join; role modes are handed to form-role-group.ts.
import { allowedDifference, expansions } from '../rating';
import { chooseRegion } from '../region';
import { partiesFit, planTeams, TeamWork } from '../teams';
import type { MatchLobby, MatchProposal } from '../match';
import { copyIds, Entry, lobbyPlayers, MAX_LOOKED_AT, MatchIdOf, Prepared, QueueKey } from './entries';
import { root, Scratch } from './scratch';
import { formRoleGroup } from './form-role-group';

/** The last of parties 0..n-1 with the id of party i. */
function lastOf(ids: string[], n: number, i: number): number {
  for (let c = n - 1; ; c--) if (ids[c] === ids[i]) return c;
}

/**
 * A lobby of party size `cs` cannot join the chosen ones, whatever its rating and window: no room, or (two
 * teams) no split of the party sizes into the teams at all, so balanceTeams could not place them either.
 * Cached per size in `rejected` (-1 not known, 1 cannot, 0 may) until the chosen ones change.
 */
function cannotJoin(
  rejected: Int8Array, cs: number, sz: Int32Array, chosen: Int32Array, cn: number, size: number, full: number,
  parties: boolean, ppt: number, splitMask: number,
): boolean {
  let r = rejected[cs];
  if (r < 0) {
    r = size + cs > full ? 1 : 0;
    if (r === 0 && splitMask !== 0 && (parties || cs > 1)) {
      // Some subset of the parties must hold between total − ppt and ppt players (bit x: x players).
      let mask = 1;
      for (let c = 0; c < cn; c++) mask = (mask | (mask << sz[chosen[c]])) & splitMask;
      mask = (mask | (mask << cs)) & splitMask;
      if (mask >>> Math.max(0, size + cs - ppt) === 0) r = 1;
    }
    rejected[cs] = r;
  }
  return r === 1;
}

/**
 * The matches one group (a region's queue, or the whole queue with a latency rule) forms now, appended to
 * `out`; the lobbies they take are appended to `taken`. `ages` and `ratings` hold the same entries, oldest
 * first and by rating. `region` is the group's region (null with a latency rule: chosen per match).
 */
export function formInGroup(
  p: Prepared, s: Scratch, ages: Entry[], ratings: Entry[], region: string | null, nowMs: number,
  key: QueueKey, matchId: MatchIdOf, out: MatchProposal[], taken: Entry[] | null,
): void {
  if (p.roles) {
    formRoleGroup(p, s, ages, ratings, region, nowMs, key, matchId, out, taken);
    return;
  }
  const n = ratings.length;
  if (n === 0) return;
  const { mode, rule, full, latency } = p;
  const equal = p.equalFields.length > 0;
  const teams = mode.teams;
  const ppt = mode.playersPerTeam;
  s.ensure(n);
  const { rat, win, sz, next, prev, fen } = s;

  // Per step: each entry's place, rating, size and window now; which party sizes there are.
  const classOf = new Int32Array(ppt + 1).fill(-1);
  const classSize: number[] = [];
  const classLen: number[] = [];
  for (let i = 0; i < n; i++) {
    const e = ratings[i];
    e.ri = i;
    rat[i] = e.rating;
    sz[i] = e.size;
    win[i] = rule ? allowedDifference(rule, Math.max(0, nowMs - e.queuedMs)) : Number.POSITIVE_INFINITY;
    let k = classOf[e.size];
    if (k < 0) {
      k = classOf[e.size] = classSize.length;
      classSize.push(e.size);
      classLen.push(0);
    }
    classLen[k]++;
  }
  for (let i = 0; i < n + 2; i++) {
    next[i] = i;
    prev[i] = i;
  }
  const multi = classSize.length > 1;
  const K = classSize.length;
  const coff = new Int32Array(K + 1);
  const loff = new Int32Array(K);
  if (multi) {
    // Fenwick tree of the unused (all unused to begin with).
    for (let i = 1; i <= n; i++) fen[i] = 1;
    for (let i = 1; i <= n; i++) {
      const j = i + (i & -i);
      if (j <= n) fen[j] += fen[i];
    }
    // Per party size: its entries in rating order, and skip links over them.
    for (let k = 0; k < K; k++) coff[k + 1] = coff[k] + classLen[k];
    const fill = Array.from(coff.subarray(0, K));
    for (let i = 0; i < n; i++) {
      const k = classOf[sz[i]];
      s.crank[i] = fill[k] - coff[k];
      s.cpos[fill[k]++] = i;
    }
    if (s.clinks.length < n + 2 * K) {
      s.clinks = new Int32Array(s.cap + 2 * (ppt + 1));
      s.clinksPrev = new Int32Array(s.clinks.length);
    }
    const { clinks, clinksPrev: cprev } = s;
    for (let k = 0, at = 0; k < K; k++) {
      loff[k] = at;
      for (let r = 0; r < classLen[k] + 2; r++) {
        clinks[at + r] = at + r;
        cprev[at + r] = at + r;
      }
      at += classLen[k] + 2;
    }
  }
  const { cpos, crank, clinks, clinksPrev: cprev } = s;

  const right = (i: number) => Math.min(root(next, i + 1) - 1, n);
  const left = (i: number) => root(prev, i + 1) - 1;
  const take = (i: number) => {
    next[i + 1] = i + 2;
    prev[i + 1] = i;
    if (!multi) return;
    for (let j = i + 1; j <= n; j += j & -j) fen[j]--;
    const k = classOf[sz[i]];
    const r = crank[i];
    clinks[loff[k] + r + 1] = loff[k] + r + 2;
    cprev[loff[k] + r + 1] = loff[k] + r;
  };
  const prefix = (i: number) => {
    let c = 0;
    for (let j = i + 1; j > 0; j -= j & -j) c += fen[j];
    return c;
  };
  /** Unused entries in [a, b]. */
  const count = (a: number, b: number) => (b < a ? 0 : prefix(b) - prefix(a - 1));
  /** The first unused entry of class k at index ≥ i, or n. */
  const nextOf = (k: number, i: number) => {
    let l = coff[k];
    let h = coff[k + 1];
    while (l < h) {
      const m = (l + h) >>> 1;
      if (cpos[m] < i) l = m + 1;
      else h = m;
    }
    const r = Math.min(root(clinks, loff[k] + (l - coff[k]) + 1) - loff[k] - 1, classLen[k]);
    return r < classLen[k] ? cpos[coff[k] + r] : n;
  };
  /** The last unused entry of class k at index ≤ i, or -1. */
  const prevOf = (k: number, i: number) => {
    let l = coff[k];
    let h = coff[k + 1];
    while (l < h) {
      const m = (l + h) >>> 1;
      if (cpos[m] <= i) l = m + 1;
      else h = m;
    }
    const r = root(cprev, loff[k] + (l - 1 - coff[k]) + 1) - loff[k] - 1;
    return r >= 0 ? cpos[coff[k] + r] : -1;
  };

  const chosen = new Int32Array(full + 1);
  const partyIds = new Array<string>(full + 1).fill('');
  const partySizes = new Int32Array(full + 1);
  const partyRatings = new Float64Array(full + 1);
  const work = new TeamWork();
  const fitSizes = new Int32Array(full + 1);
  const fitWeights = new Float64Array(full + 1);
  const teamSizes = new Int32Array(teams);
  const teamSums = new Float64Array(teams);
  // Per party size, for the lobbies chosen so far: -1 not known yet, 1 it cannot join, 0 it may.
  const rejected = new Int8Array(ppt + 1);
  // Per match: the chosen party of each team member (lastOf), and the players per team.
  const partyOf = new Int32Array((full + 1) * teams);
  const teamCount = new Int32Array(teams);
  const splitMask = teams === 2 && ppt <= 29 ? (1 << (ppt + 1)) - 1 : 0;

  for (const anchor of ages) {
    const at = anchor.ri;
    if (next[at + 1] !== at + 1) continue;
    const waited = Math.max(0, nowMs - anchor.queuedMs);
    const grown = rule ? expansions(rule, waited) > 0 : true;
    const least = grown ? teams * mode.minPlayersPerTeam : full;
    const reach = rule ? win[at] : Number.POSITIVE_INFINITY;
    const ar = rat[at];
    chosen[0] = at;
    let cn = 1;
    let size = anchor.size;
    let parties = size > 1;
    let common = latency ? anchor.regions! : null;
    const eq = anchor.eq;
    if (multi) for (let k = 0; k < K; k++) rejected[classSize[k]] = -1;
    // Outward from the anchor's rating, nearest first, over unused lobbies only.
    let lo = left(at - 1);
    let hi = right(at + 1);
    let looked = 0;
    while (size < full && looked < MAX_LOOKED_AT) {
      const down = lo >= 0 ? ar - rat[lo] : Number.POSITIVE_INFINITY;
      const up = hi < n ? rat[hi] - ar : Number.POSITIVE_INFINITY;
      if (Math.min(down, up) > reach) break;
      if (lo < 0 && hi >= n) break; // nothing left (without a difference rule the reach is infinite)
      const isDown = down <= up;
      const ci = isDown ? lo : hi;
      const cs = sz[ci];
      if (!multi ? size + cs > full : cannotJoin(rejected, cs, sz, chosen, cn, size, full, parties, ppt, splitMask)) {
        // Every lobby of this size is refused until the chosen ones change: only another size can come next.
        if (!multi) break;
        let dT = -1;
        let uT = n;
        for (let k = 0; k < K; k++) {
          if (cannotJoin(rejected, classSize[k], sz, chosen, cn, size, full, parties, ppt, splitMask)) continue;
          if (lo >= 0) dT = Math.max(dT, prevOf(k, lo));
          if (hi < n) uT = Math.min(uT, nextOf(k, hi));
        }
        if (dT < 0 && uT >= n) break;
        const ddT = dT >= 0 ? ar - rat[dT] : Number.POSITIVE_INFINITY;
        const duT = uT < n ? rat[uT] - ar : Number.POSITIVE_INFINITY;
        // Every unused lobby walked before the target is passed over (and counted as looked at).
        if (ddT <= duT) {
          // Down first: the up side passes what is nearer than ddT.
          let l = hi;
          let h = uT;
          while (l < h) {
            const m = (l + h) >>> 1;
            if (rat[m] - ar < ddT) l = m + 1;
            else h = m;
          }
          looked += count(dT + 1, lo) + count(hi, l - 1);
          lo = dT;
          hi = right(l);
        } else {
          // Up first: the down side passes what is at most duT away.
          let l = dT + 1;
          let h = lo + 1;
          while (l < h) {
            const m = (l + h) >>> 1;
            if (ar - rat[m] <= duT) h = m;
            else l = m + 1;
          }
          looked += count(hi, uT - 1) + count(l, lo);
          hi = uT;
          lo = left(l - 1);
        }
        continue;
      }
      if (isDown) lo = left(lo - 1);
      else hi = right(hi + 1);
      looked++;
      if (rule) {
        const rc = rat[ci];
        const wc = win[ci];
        let ok = true;
        for (let c = 0; c < cn && ok; c++) {
          const x = chosen[c];
          const gap = Math.abs(rat[x] - rc);
          ok = gap <= win[x] && gap <= wc;
        }
        if (!ok) continue;
      }
      const ce = ratings[ci];
      // Within one region's queue (no latency rule) every lobby shares the region.
      if (common && !common.some((r) => ce.regions!.includes(r))) continue;
      if (equal && (eq === null || ce.eq !== eq)) continue;
      // Solo players always fit while there is room; parties may not (a team has room, but not for all of them).
      if (parties || cs > 1) {
        for (let c = 0; c < cn; c++) {
          fitSizes[c] = sz[chosen[c]];
          fitWeights[c] = rat[chosen[c]] * sz[chosen[c]];
        }
        fitSizes[cn] = cs;
        fitWeights[cn] = rat[ci] * cs;
        if (!partiesFit(fitSizes, fitWeights, cn + 1, teams, ppt, teamSizes, teamSums)) continue;
      }
      chosen[cn++] = ci;
      size += cs;
      if (cs > 1) parties = true;
      if (common) common = common.filter((r) => ce.regions!.includes(r));
      if (multi) for (let k = 0; k < K; k++) rejected[classSize[k]] = -1;
    }
    if (size < least) continue;

    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      partyIds[c] = x.id;
      partySizes[c] = x.size;
      partyRatings[c] = x.rating;
    }
    if (!planTeams(cn, partySizes, partyRatings, partyIds, null, teams, ppt, work)) continue;
    const where = latency ? chooseRegion(mode, Array.from(chosen.subarray(0, cn), (i) => ratings[i].t)) : region;
    if (!where) continue;
    // A team's parties by lobby id: the last chosen of that id (as a Map of the chosen by id would give).
    const min = grown ? mode.minPlayersPerTeam : ppt;
    let short = false;
    for (let t = 0; t < teams; t++) {
      let players = 0;
      for (let j = 0; j < work.count[t]; j++) {
        const c = lastOf(partyIds, cn, work.members[t * cn + j]);
        partyOf[t * cn + j] = c;
        players += partySizes[c];
      }
      teamCount[t] = players;
      if (players < min) short = true;
    }
    if (short) continue;
    const lobbies: MatchLobby[] = new Array(cn);
    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      lobbies[c] = { lobbyId: x.id, ticket: x.t.ticket, players: lobbyPlayers(x), rating: x.rating, queuedAt: x.t.queuedAt };
    }
    const teamPlayers: string[][] = new Array(teams);
    for (let t = 0; t < teams; t++) {
      const list = new Array<string>(teamCount[t]);
      let at = 0;
      for (let j = 0; j < work.count[t]; j++) at = copyIds(ratings[chosen[partyOf[t * cn + j]]].pids, list, at);
      teamPlayers[t] = list;
    }
    for (let c = 0; c < cn; c++) {
      take(chosen[c]);
      if (taken) taken.push(ratings[chosen[c]]);
    }
    out.push({
      matchId: matchId(lobbies), projectId: key.projectId, config: key.config, mode: mode.name, region: where, lobbies,
      teams: teamPlayers,
      requireConfirmation: mode.requireConfirmation, confirmationTimeoutMs: mode.confirmationTimeout * 1000,
    });
  }
}
