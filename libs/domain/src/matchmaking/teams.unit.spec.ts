import { balanceTeams, Party } from '.';

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
});
