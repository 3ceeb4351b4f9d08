// Explain: why a lobby has not matched, agreeing with the matching step.
import { formMatches, Ticket } from './engine';
import { explainTicket } from './explain';
import { resolveMode } from './mode';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const key = { projectId: 'p1', config: 'ranked' };
const ids = (lobbies: { lobbyId: string }[]) => lobbies.map((l) => l.lobbyId).join('+');
const duel = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: 2, expandBy: 100 }] });
const ticket = (lobbyId: string, mmr: number[], extra: Partial<Ticket> = {}): Ticket =>
  ({ lobbyId, ticket: 1, region: 'eu-west', queuedAt: at(0), players: mmr.map((r, i) => ({ id: `${lobbyId}-${i}`, state: { mmr: r } })), ...extra });

describe('explainTicket', () => {
  it('1000 vs 1450: no candidate in the window (gap 450, window 100 → 400 at 6 s, grows at 8 s); at 8 s a candidate, and the step matches', () => {
    const a = ticket('a', [1000]);
    const b = ticket('b', [1450]);
    const early = explainTicket(duel, a, [a, b], at(6_500));
    expect(early).toEqual({
      currentRule: { field: 'mmr', maxDifference: 400, nextExpansionAt: at(8_000) }, rating: 1000, candidates: 0, nearestGap: 450,
      blockedBy: [
        { code: 'no_candidate_in_window', rating: 1000, maxDifference: 400, nearestGap: 450, nextExpansionAt: at(8_000) },
        { code: 'not_enough_players', playersAvailable: 1, playersNeeded: 2 },
      ],
    });
    expect(formMatches(key, duel, [a, b], at(6_500), ids)).toEqual([]);
    const due = explainTicket(duel, a, [a, b], at(8_000));
    expect(due).toMatchObject({ candidates: 1, blockedBy: [] });
    expect(formMatches(key, duel, [a, b], at(8_000), ids)).toHaveLength(1);
  });

  it('alone in its region: not enough players (another region does not count without a latency rule)', () => {
    const a = ticket('a', [1000]);
    const far = ticket('far', [1000], { region: 'us-east' });
    expect(explainTicket(duel, a, [a, far], at(1_000))).toMatchObject({ candidates: 0, nearestGap: null, blockedBy: [{ code: 'not_enough_players', playersAvailable: 1, playersNeeded: 2 }] });
  });

  it('a party larger than the mode takes is named with its figures', () => {
    const party = ticket('p', [1000, 1000]);
    expect(explainTicket(duel, party, [party], at(0)).blockedBy).toContainEqual({ code: 'party_too_large', partySize: 2, maxPartySize: 1 });
  });
});
