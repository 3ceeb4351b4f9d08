import { balanceTeams, partiesFit, Party } from '.';
import { referenceBalanceTeams } from './testing';

const solo = (id: string, rating: number): Party => ({ id, size: 1, rating });

describe('balanced teams', () => {
  it('5v5 of solos: the rating sums come out as even as the ratings allow', () => {
    const ratings = [1500, 1400, 1300, 1200, 1100, 1000, 900, 800, 700, 600];
    const plan = balanceTeams(ratings.map((r, i) => solo(`p${i}`, r)), 2, 5)!;
    expect(plan.teams.map((t) => t.length)).toEqual([5, 5]);
    expect(Math.abs(plan.sums[0] - plan.sums[1])).toBe(100); // the total is 10,500: 5,200 vs 5,300 is the best split
  });

  it('parties stay whole and count by their players', () => {
    const plan = balanceTeams([{ id: 'trio', size: 3, rating: 1000 }, { id: 'duo', size: 2, rating: 1200 }, solo('a', 1300), solo('b', 900), solo('c', 1100)], 2, 4)!;
    const team = (id: string) => plan.teams.findIndex((t) => t.includes(id));
    expect(team('trio')).not.toBe(team('duo'));
    expect(plan.sums.reduce((a, b) => a + b)).toBe(3000 + 2400 + 1300 + 900 + 1100);
    expect(Math.abs(plan.sums[0] - plan.sums[1])).toBeLessThanOrEqual(400);
  });

  it('refuses what does not fit: a party larger than a team, or too many players', () => {
    expect(balanceTeams([{ id: 'five', size: 5, rating: 1000 }], 2, 4)).toBeNull();
    expect(balanceTeams([solo('a', 1), solo('b', 1), solo('c', 1)], 2, 1)).toBeNull();
  });

  it('free-for-all: one player per team', () => {
    expect(balanceTeams([solo('a', 1000), solo('b', 1100), solo('c', 900)], 3, 1)!.teams.map((t) => t.length)).toEqual([1, 1, 1]);
  });

  it('gives what the first balanceTeams gave, and partiesFit says when it places them, on seeded random parties', () => {
    let seed = 7;
    const r = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    let placed = 0;
    for (let c = 0; c < 20_000; c++) {
      const teams = 1 + Math.floor(r() * 5);
      const ppt = 1 + Math.floor(r() * 6);
      const parties: Party[] = [];
      for (let i = Math.floor(r() * (teams * ppt + 2)); i > 0; i--) {
        if (parties.length && r() < 0.05) parties.push(parties[Math.floor(r() * parties.length)]); // the same party twice
        else parties.push({ id: ['a', 'B', 'b', 'é', '10', '9'][Math.floor(r() * 6)] + Math.floor(r() * 4), size: 1 + Math.floor(r() * Math.min(3, ppt)), rating: r() < 0.3 ? 1000 : Math.round(r() * 100) * (r() < 0.1 ? -1 : 1) });
      }
      const expected = referenceBalanceTeams(parties, teams, ppt);
      expect(balanceTeams(parties, teams, ppt)).toEqual(expected);
      expect(partiesFit(parties.map((p) => p.size), parties.map((p) => p.rating * p.size), parties.length, teams, ppt, [], [])).toBe(expected !== null);
      if (expected) placed++;
    }
    expect(placed).toBeGreaterThan(5_000);
  });
});
