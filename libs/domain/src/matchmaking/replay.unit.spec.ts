// Rule replay: a recorded period under a proposed mode, beside what happened.
import { resolveMode } from './mode';
import { replayQueue } from './replay';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const key = { projectId: 'p1', config: 'ranked' };
const queue = (lobbyId: string, mmr: number, queuedMs = 0) => ({ projectId: 'p1', config: 'ranked', mode: 'duel', ticket: 1, queuedAt: at(queuedMs), region: 'eu-west', players: [{ id: `${lobbyId}-p`, state: { mmr } }] });
const started = (lobbyId: string, mmr: number, ms = 0) => ({ type: 'MatchmakingStarted', data: { lobbyId, by: `${lobbyId}-p`, timeoutAt: at(120_000), queue: queue(lobbyId, mmr, ms), at: at(ms) } });
const found = (lobbyId: string, matchId: string, ms: number) => ({ type: 'LobbyMatchFound', data: { lobbyId, matchId, confirmationDeadline: null, at: at(ms) } });
const lobby = (lobbyId: string, mmr: number) => ({ lobbyId, ticket: 1, players: [`${lobbyId}-p`], rating: mmr, queuedAt: at(0) });
const proposed = (matchId: string, a: [string, number], b: [string, number], ms: number) => ({
  type: 'MatchProposed',
  data: { matchId, projectId: 'p1', config: 'ranked', mode: 'duel', region: 'eu-west', lobbies: [lobby(...a), lobby(...b)], teams: [[`${a[0]}-p`], [`${b[0]}-p`]], requireConfirmation: false, confirmationTimeoutMs: 15_000, at: at(ms) },
});
const formed = (matchId: string, ms: number) => ({ type: 'MatchFormed', data: { matchId, confirmationDeadline: null, at: at(ms) } });

describe('replayQueue', () => {
  // Recorded under a loose rule: 1000 met 1450 and 1050 met 1400 at once.
  const recorded = [
    started('a', 1000), started('b', 1050), started('c', 1400), started('d', 1450),
    proposed('m1', ['a', 1000], ['d', 1450], 100), formed('m1', 200), found('a', 'm1', 200), found('d', 'm1', 200),
    proposed('m2', ['b', 1050], ['c', 1400], 100), formed('m2', 200), found('b', 'm2', 200), found('c', 'm2', 200),
    // another config's search is not this queue's
    { type: 'MatchmakingStarted', data: { lobbyId: 'x', by: 'x', timeoutAt: at(1), queue: { ...queue('x', 1000), config: 'casual' }, at: at(0) } },
  ];
  const range = { from: at(0), to: at(30_000) };

  it('under a tight window (100), pairs near ratings: a smaller spread and imbalance than what happened, as fast', () => {
    const tight = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100 }] });
    const r = replayQueue(key, 'duel', tight, recorded as never, range);
    expect(r.actual).toEqual({ searches: 4, matched: 4, unmatched: 0, matches: 2, timeToMatch: { p50: 0.2, p90: 0.2, p99: 0.2 }, meanRatingSpread: 400, meanTeamImbalance: 400 });
    expect(r.simulated).toEqual({ searches: 4, matched: 4, unmatched: 0, matches: 2, timeToMatch: { p50: 0, p90: 0, p99: 0 }, meanRatingSpread: 50, meanTeamImbalance: 50 });
  });

  it('under a window too tight for anyone, nobody matches and the timeout ends every search', () => {
    const none = resolveMode('duel', { teams: 2, playersPerTeam: 1, timeout: 10, rules: [{ type: 'difference', field: 'mmr', maxDifference: 10 }] });
    expect(replayQueue(key, 'duel', none, recorded as never, range).simulated).toMatchObject({ searches: 4, matched: 0, unmatched: 4, matches: 0 });
  });
});
