// Role modes' pieces: a player's role, a lobby's role make-up, and the placement and balancing of parties
// on teams with role slots.
import { resolveMode } from './mode';
import { roleOf, roleProblems, roleTable, roleVector, RoleWork } from './roles';

const raid = resolveMode('raid', { teams: 2, roles: { tank: { count: 1 }, healer: { count: 1 }, dps: { count: 2, field: 'class' } } });
const table = roleTable(raid)!;

describe('roles', () => {
  it('a player\'s role: the first role of the mode whose field names it; none otherwise', () => {
    expect(roleTable(resolveMode('plain', { teams: 2, playersPerTeam: 2 }))).toBeNull();
    expect(roleOf(table, { role: 'tank' })).toBe(0);
    expect(roleOf(table, { class: 'dps' })).toBe(2);
    expect(roleOf(table, { role: 'dps' })).toBe(-1); // dps is read from `class`
    expect(roleOf(table, { role: 'healer', class: 'dps' })).toBe(1);
    expect(roleOf(table, {})).toBe(-1);
    expect(roleOf(roleTable(resolveMode('m', { roles: { tank: { count: 1 } } }))!, { role: 'toString' })).toBe(-1);
  });

  it('a lobby\'s make-up, and what keeps it out: a player without a role, more of a role than a team holds', () => {
    const vec = new Int32Array(3);
    expect(roleVector(table, [{ state: { role: 'tank' } }, { state: { class: 'dps' } }, { state: { class: 'dps' } }], vec)).toBe(true);
    expect(Array.from(vec)).toEqual([1, 0, 2]);
    expect(roleVector(table, [{ state: { role: 'tank' } }, { state: { role: 'tank' } }], vec)).toBe(false);
    expect(roleProblems(table, [{ id: 'a', state: { role: 'tank' } }, { id: 'b', state: { role: 'tank' } }, { id: 'c', state: {} }]))
      .toEqual({ missing: ['c'], full: [{ role: 'tank', count: 1 }] });
  });

  it('places parties exactly when some placement exists (brute force over every assignment, seeded random parties)', () => {
    let seed = 3;
    const r = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    let placed = 0;
    for (let c = 0; c < 3000; c++) {
      const teams = 1 + Math.floor(r() * 3);
      const counts = [1 + Math.floor(r() * 2), 1 + Math.floor(r() * 3), Math.floor(r() * 2) + 1];
      const mode = resolveMode('m', { teams, roles: { a: { count: counts[0] }, b: { count: counts[1] }, c: { count: counts[2] } } });
      const t = roleTable(mode)!;
      const parties = Array.from({ length: 1 + Math.floor(r() * 5) }, () => {
        const v = new Int32Array(3);
        for (let k = 1 + Math.floor(r() * 3); k > 0; k--) v[Math.floor(r() * 3)]++;
        return v;
      }).filter((v) => v.every((x, i) => x <= counts[i]));
      const n = parties.length;
      const size = parties.map((v) => v.reduce((a, b) => a + b, 0));
      // Brute force: every assignment of the parties of two or more to teams.
      const multi = parties.map((_, i) => i).filter((i) => size[i] > 1);
      let exists = false;
      for (let code = 0; code < teams ** multi.length && !exists; code++) {
        const used = Array.from({ length: teams }, () => [0, 0, 0]);
        let x = code;
        for (const i of multi) {
          const team = x % teams;
          x = Math.floor(x / teams);
          for (let k = 0; k < 3; k++) used[team][k] += parties[i][k];
        }
        exists = used.every((u) => u.every((v, k) => v <= counts[k]));
      }
      const work = new RoleWork(t, teams);
      const got = work.placeParties(n, parties, size, parties.map(() => r() * 1000), parties.map((_, i) => `p${i}`));
      expect(got).toBe(exists);
      if (got) placed++;
    }
    expect(placed).toBeGreaterThan(1000);
  });

  it('plans full teams with every role slot filled, parties whole, rating sums balanced as the roles allow', () => {
    const mode = resolveMode('m', { teams: 2, roles: { tank: { count: 1 }, dps: { count: 2 } } });
    const work = new RoleWork(roleTable(mode)!, 2);
    const tank = Int32Array.from([1, 0]);
    const dps = Int32Array.from([0, 1]);
    const duo = Int32Array.from([1, 1]);
    // A duo (tank + dps, 1200 each), a tank 1000, dps 1300, 1100 and 1000.
    const vecs = [duo, tank, dps, dps, dps];
    const size = [2, 1, 1, 1, 1];
    const weight = [2400, 1000, 1300, 1100, 1000];
    expect(work.planRoleTeams(5, vecs, size, weight, ['duo', 't', 'd1', 'd2', 'd3'])).toBe(true);
    const team = Array.from(work.team.subarray(0, 5));
    expect(team[0]).not.toBe(team[1]); // two tanks: one per team
    expect(team.filter((t) => t === team[0])).toHaveLength(2); // the duo and one dps
    expect(Array.from(work.sums).sort()).toEqual([3400, 3400]); // duo + 1000 vs 1000 + 1300 + 1100
  });
});
