import { allowedDifference, lobbyRating, matchSize, MatchRule, mutuallyInWindow, nextExpansionAt, resolveMode, resolveModes } from '.';

type Difference = Extract<MatchRule, { type: 'difference' }>;
const rule = (over: Partial<Difference> = {}): Difference =>
  ({ type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: 2, expandBy: 100, maxExpansion: null, ...over });

describe('matchmaking modes', () => {
  it('fills in every default of a mode', () => {
    expect(resolveMode('ranked', { teams: 2, playersPerTeam: 5, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100 }] })).toEqual({
      name: 'ranked', teams: 2, playersPerTeam: 5, minPlayersPerTeam: 5, roles: null, maxPartySize: 5, timeout: 120, requireConfirmation: false,
      confirmationTimeout: 15, allowBackfill: false, backfillWindow: 60, regions: 'vote',
      rules: [{ type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: null, expandBy: 0, maxExpansion: null }],
    });
  });

  it('roles replace teams × playersPerTeam; free-for-all and battle-royale duos are plain shapes', () => {
    const asym = resolveMode('raid', { teams: 1, roles: { tank: { count: 1 }, healer: { count: 2 }, dps: { count: 3, field: 'class' } } });
    expect(asym.playersPerTeam).toBe(6);
    expect(asym.roles).toEqual({ tank: { count: 1, field: 'role' }, healer: { count: 2, field: 'role' }, dps: { count: 3, field: 'class' } });
    expect(matchSize(resolveMode('ffa', { teams: 8, playersPerTeam: 1 }))).toBe(8);
    expect(matchSize(resolveMode('duos', { teams: 30, playersPerTeam: 2 }))).toBe(60);
  });

  it('minPlayersPerTeam stays within 1..playersPerTeam; unknown rules and regions fall back', () => {
    const m = resolveMode('m', { teams: 2, playersPerTeam: 4, minPlayersPerTeam: 9, regions: 'moon', rules: [{ type: 'nope' }, { type: 'equal', field: 'map' }, { type: 'latency', maxMs: 80 }] });
    expect(m.minPlayersPerTeam).toBe(4);
    expect(m.regions).toBe('vote');
    expect(m.rules).toEqual([{ type: 'equal', field: 'map' }, { type: 'latency', maxMs: 80 }]);
  });

  it('reads the modes of a config\'s matchmaking setting; none without one', () => {
    expect(Object.keys(resolveModes({ modes: { duel: { teams: 2, playersPerTeam: 1 }, squads: { teams: 2, playersPerTeam: 4 } } }))).toEqual(['duel', 'squads']);
    expect(resolveModes(undefined)).toEqual({});
    expect(resolveModes({ modes: 'x' })).toEqual({});
  });
});

describe('skill windows', () => {
  it('a lobby\'s rating is the mean of its players\' field, a missing value counting as 1000', () => {
    expect(lobbyRating([{ state: { mmr: 1200 } }, { state: { mmr: 1400 } }], 'mmr')).toBe(1300);
    expect(lobbyRating([{ state: { mmr: 1600 } }, { state: {} }, { state: { mmr: 'high' } }], 'mmr')).toBe(1200);
    expect(lobbyRating([], 'mmr')).toBe(1000);
  });

  it('base 100, +100 every 2 s: 1000 and 1450 match right at 8 s, not before', () => {
    const r = rule();
    const at = (ms: number) => mutuallyInWindow(r, { rating: 1000, waitedMs: ms }, { rating: 1450, waitedMs: ms });
    expect(at(7_999)).toBe(false);
    expect(at(8_000)).toBe(true);
    expect(allowedDifference(r, 0)).toBe(100);
    expect(allowedDifference(r, 7_999)).toBe(400);
    expect(allowedDifference(r, 8_000)).toBe(500);
  });

  it('windows are mutual: a lobby that just queued does not take a far one whose window is wide', () => {
    expect(mutuallyInWindow(rule(), { rating: 1000, waitedMs: 60_000 }, { rating: 1450, waitedMs: 0 })).toBe(false);
  });

  it('maxExpansion caps what is added; the next expansion is reported until the cap', () => {
    const r = rule({ maxExpansion: 250 });
    expect(allowedDifference(r, 60_000)).toBe(350);
    expect(nextExpansionAt(r, 0)).toBe(2_000);
    expect(nextExpansionAt(r, 5_000)).toBe(6_000);
    expect(nextExpansionAt(r, 6_000)).toBeNull(); // 3 × 100 ≥ 250
    expect(nextExpansionAt(rule({ expandEvery: null }), 0)).toBeNull();
  });
});
