// formInGroup's walk for role modes (roles.ts): role make-ups in place of party sizes, full matches only.
// Its own file, as it shares only entries and scratch with formInGroup (which hands role modes here).
import { allowedDifference } from '../rating';
import { chooseRegion } from '../region';
import { roleOf, RoleWork } from '../roles';
import type { MatchLobby, MatchProposal } from '../match';
import { copyIds, Entry, lobbyPlayers, MAX_LOOKED_AT, MatchIdOf, Prepared, QueueKey } from './entries';
import { root, Scratch } from './scratch';

/**
 * formInGroup for a role mode (roles.ts): the same anchors, walk, windows, regions and `equal` rules, but a
 * candidate must fit the role slots still free (every role's total at most teams × its count, and its
 * party on one team with the others placed: RoleWork.placeParties), and only full matches form (every
 * team exactly `count` players of each role). The entries are role-eligible (takes) already.
 */
export function formRoleGroup(
  p: Prepared, s: Scratch, ages: Entry[], ratings: Entry[], region: string | null, nowMs: number,
  key: QueueKey, matchId: MatchIdOf, out: MatchProposal[], taken: Entry[] | null,
): void {
  const n = ratings.length;
  if (n === 0) return;
  const { mode, rule, full, latency } = p;
  const table = p.roles!;
  const R = table.names.length;
  const equal = p.equalFields.length > 0;
  const teams = mode.teams;
  s.ensure(n);
  const { rat, win } = s;
  // Unused players of each role in the group: once one falls below what a match needs, no anchor can match.
  const avail = new Float64Array(R);
  const want = new Int32Array(R);
  for (let r = 0; r < R; r++) want[r] = teams * table.counts[r];
  for (let i = 0; i < n; i++) {
    const e = ratings[i];
    e.ri = i;
    rat[i] = e.rating;
    win[i] = rule ? allowedDifference(rule, Math.max(0, nowMs - e.queuedMs)) : Number.POSITIVE_INFINITY;
    for (let r = 0; r < R; r++) avail[r] += e.roles![r];
  }
  // Role classes: the lobbies of one role make-up (players per role), as the party-size classes of
  // formInGroup. Per class: its entries in rating order, and skip links over the unused ones; the walk goes
  // to the nearest unused lobby of a class that can join the chosen ones (its roles within the slots still
  // free, and its party placeable with theirs), so the lobbies of the others are passed over, not looked at.
  const classOf = new Int32Array(n);
  const classVec: Int32Array[] = [];
  const classSize: number[] = [];
  const classLen: number[] = [];
  {
    const keys = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const v = ratings[i].roles!;
      const key = R === 1 ? String(v[0]) : v.join(',');
      let k = keys.get(key);
      if (k === undefined) {
        k = classVec.length;
        keys.set(key, k);
        classVec.push(v);
        classSize.push(ratings[i].size);
        classLen.push(0);
      }
      classOf[i] = k;
      classLen[k]++;
    }
  }
  const K = classVec.length;
  const coff = new Int32Array(K + 1);
  for (let k = 0; k < K; k++) coff[k + 1] = coff[k] + classLen[k];
  const cpos = new Int32Array(n);
  const crank = new Int32Array(n);
  {
    const at0 = Array.from(coff.subarray(0, K));
    for (let i = 0; i < n; i++) {
      const k = classOf[i];
      crank[i] = at0[k] - coff[k];
      cpos[at0[k]++] = i;
    }
  }
  const links = n + 2 * K;
  const cnext = new Int32Array(links);
  const cprev = new Int32Array(links);
  for (let i = 0; i < links; i++) {
    cnext[i] = i;
    cprev[i] = i;
  }
  // Class k's entry of rank j is at link coff[k] + 2k + j + 1; coff[k] + 2k and coff[k] + 2k + len + 1 are sentinels.
  const loff = (k: number) => coff[k] + 2 * k;
  /** The first rank in class k whose entry is at index ≥ i. */
  const lower = (k: number, i: number) => {
    let l = coff[k];
    let h = coff[k + 1];
    while (l < h) {
      const m = (l + h) >>> 1;
      if (cpos[m] < i) l = m + 1;
      else h = m;
    }
    return l - coff[k];
  };
  /** The first unused entry of class k at index ≥ i, or n. */
  const nextOf = (k: number, i: number) => {
    const j = root(cnext, loff(k) + lower(k, i) + 1) - loff(k) - 1;
    return j < classLen[k] ? cpos[coff[k] + j] : n;
  };
  /** The last unused entry of class k at index ≤ i, or -1. */
  const prevOf = (k: number, i: number) => {
    const j = root(cprev, loff(k) + lower(k, i + 1)) - loff(k) - 1;
    return j >= 0 ? cpos[coff[k] + j] : -1;
  };
  const used = new Uint8Array(n);
  const take = (i: number) => {
    used[i] = 1;
    const k = classOf[i];
    const j = loff(k) + crank[i] + 1;
    cnext[j] = j + 1;
    cprev[j] = j - 1;
  };

  const need = new Int32Array(R);
  const chosen = new Int32Array(full + 1);
  const vecs = new Array<Int32Array>(full + 1);
  const sizes = new Int32Array(full + 1);
  const weights = new Float64Array(full + 1);
  const ids = new Array<string>(full + 1).fill('');
  const work = new RoleWork(table, teams);
  const teamCount = new Int32Array(teams);
  const fill = (c: number, i: number) => {
    const x = ratings[i];
    vecs[c] = x.roles!;
    sizes[c] = x.size;
    weights[c] = x.rating * x.size;
    ids[c] = x.id;
  };
  // The classes that can join the chosen ones (adm[0..na)), worked out again whenever those change: its
  // roles within the slots still free, and (parties) a placement of every party on the teams. A placement
  // found proves the fit whatever the ratings, so a lobby of an admitted class fits the role slots.
  const adm = new Int32Array(K);
  let na = 0;
  const admit = (cn: number, parties: boolean) => {
    na = 0;
    for (let k = 0; k < K; k++) {
      const v = classVec[k];
      let ok = true;
      for (let r = 0; r < R && ok; r++) ok = v[r] <= need[r];
      if (!ok) continue;
      if (parties || classSize[k] > 1) {
        vecs[cn] = v;
        sizes[cn] = classSize[k];
        weights[cn] = 0;
        ids[cn] = '';
        if (!work.placeParties(cn + 1, vecs, sizes, weights, ids)) continue;
      }
      adm[na++] = k;
    }
  };

  for (const anchor of ages) {
    let enough = true;
    for (let r = 0; r < R; r++) if (avail[r] < want[r]) enough = false;
    if (!enough) break;
    const at = anchor.ri;
    if (used[at] === 1) continue;
    const reach = rule ? win[at] : Number.POSITIVE_INFINITY;
    const ar = rat[at];
    chosen[0] = at;
    fill(0, at);
    let cn = 1;
    let size = anchor.size;
    let parties = size > 1;
    for (let r = 0; r < R; r++) need[r] = want[r] - anchor.roles![r];
    let common = latency ? anchor.regions! : null;
    const eq = anchor.eq;
    admit(cn, parties);
    // Outward from the anchor's rating, nearest first, over unused lobbies of admitted classes only (the
    // others are passed over, not looked at): lo and hi are where each side goes on from.
    let lo = at - 1;
    let hi = at + 1;
    let looked = 0;
    while (size < full && looked < MAX_LOOKED_AT) {
      let dn = -1;
      let un = n;
      for (let a = 0; a < na; a++) {
        const k = adm[a];
        if (lo >= 0) dn = Math.max(dn, prevOf(k, lo));
        if (hi < n) un = Math.min(un, nextOf(k, hi));
      }
      const down = dn >= 0 ? ar - rat[dn] : Number.POSITIVE_INFINITY;
      const up = un < n ? rat[un] - ar : Number.POSITIVE_INFINITY;
      if (Math.min(down, up) > reach) break;
      if (dn < 0 && un >= n) break;
      const ci = down <= up ? dn : un;
      if (down <= up) lo = dn - 1;
      else hi = un + 1;
      looked++;
      const ce = ratings[ci];
      const cv = ce.roles!;
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
      if (common && !common.some((r) => ce.regions!.includes(r))) continue;
      if (equal && (eq === null || ce.eq !== eq)) continue;
      const cs = ce.size;
      fill(cn, ci);
      chosen[cn++] = ci;
      size += cs;
      if (cs > 1) parties = true;
      for (let r = 0; r < R; r++) need[r] -= cv[r];
      if (common) common = common.filter((r) => ce.regions!.includes(r));
      if (size < full) admit(cn, parties);
    }
    if (size < full) continue;
    if (!work.planRoleTeams(cn, vecs, sizes, weights, ids)) continue;
    const where = latency ? chooseRegion(mode, Array.from(chosen.subarray(0, cn), (i) => ratings[i].t)) : region;
    if (!where) continue;
    const lobbies: MatchLobby[] = new Array(cn);
    for (let t = 0; t < teams; t++) teamCount[t] = 0;
    for (let c = 0; c < cn; c++) teamCount[work.team[c]] += ratings[chosen[c]].size;
    const teamPlayers: string[][] = new Array(teams);
    for (let t = 0; t < teams; t++) {
      teamPlayers[t] = new Array<string>(teamCount[t]);
      teamCount[t] = 0;
    }
    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      // Each player's role, kept on the match: a freed slot is refilled by its role (engine backfill).
      const roles = x.t.players.map((pl) => table.names[roleOf(table, pl.state)]);
      lobbies[c] = { lobbyId: x.id, ticket: x.t.ticket, players: lobbyPlayers(x), rating: x.rating, queuedAt: x.t.queuedAt, roles };
      const t = work.team[c];
      teamCount[t] = copyIds(x.pids, teamPlayers[t], teamCount[t]);
    }
    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      take(x.ri);
      for (let r = 0; r < R; r++) avail[r] -= x.roles![r];
      if (taken) taken.push(x);
    }
    out.push({
      matchId: matchId(lobbies), projectId: key.projectId, config: key.config, mode: mode.name, region: where, lobbies,
      teams: teamPlayers,
      requireConfirmation: mode.requireConfirmation, confirmationTimeoutMs: mode.confirmationTimeout * 1000,
    });
  }
}
