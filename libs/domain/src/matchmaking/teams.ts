// Balanced teams (decisions.md): parties (lobbies) stay whole, every team gets at most playersPerTeam
// players, and the teams' rating sums are as even as possible. Largest parties first into the team with
// the lowest sum that has room, then swaps of equal-sized parties between teams while they narrow the
// spread (exact for 1v1 and pairs; close for the rest, and fast enough for a tick over many matches).

export interface Party { id: string; size: number; rating: number }

export interface TeamPlan {
  /** Party ids per team. */
  teams: string[][];
  /** Sum of player ratings per team (rating × size of each party). */
  sums: number[];
}

const weight = (p: Party) => p.rating * p.size;
const spread = (sums: number[]) => Math.max(...sums) - Math.min(...sums);

/** Null when the parties do not fit (a party larger than a team, or more players than the match holds). */
export function balanceTeams(parties: Party[], teams: number, playersPerTeam: number): TeamPlan | null {
  const members: Party[][] = Array.from({ length: teams }, () => []);
  const sizes = new Array<number>(teams).fill(0);
  const sums = new Array<number>(teams).fill(0);
  const order = [...parties].sort((a, b) => b.size - a.size || weight(b) - weight(a) || a.id.localeCompare(b.id));
  for (const p of order) {
    let best = -1;
    for (let t = 0; t < teams; t++) {
      if (sizes[t] + p.size > playersPerTeam) continue;
      if (best < 0 || sums[t] < sums[best] || (sums[t] === sums[best] && sizes[t] < sizes[best])) best = t;
    }
    if (best < 0) return null;
    members[best].push(p);
    sizes[best] += p.size;
    sums[best] += weight(p);
  }
  // Swaps of equal-sized parties (team sizes unchanged) while one narrows the spread.
  for (let improved = true, rounds = 0; improved && rounds < 50; rounds++) {
    improved = false;
    const before = spread(sums);
    for (let a = 0; a < teams && !improved; a++) {
      for (let b = a + 1; b < teams && !improved; b++) {
        for (const x of members[a]) {
          const y = members[b].find((c) => c.size === x.size && Math.abs((sums[a] - weight(x) + weight(c)) - (sums[b] - weight(c) + weight(x))) < Math.abs(sums[a] - sums[b]));
          if (!y) continue;
          const next = [...sums];
          next[a] += weight(y) - weight(x);
          next[b] += weight(x) - weight(y);
          if (spread(next) >= before) continue;
          members[a] = members[a].map((p) => (p === x ? y : p));
          members[b] = members[b].map((p) => (p === y ? x : p));
          sums.splice(0, sums.length, ...next);
          improved = true;
          break;
        }
      }
    }
  }
  return { teams: members.map((m) => m.map((p) => p.id)), sums };
}
