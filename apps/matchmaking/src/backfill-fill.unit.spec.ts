// Engine-managed backfill's two rules: when a game may take a fill (its mode, its window, its lock) and
// which queued lobby fills it (region, free slots of a team, skill band or the lobby's own window of the
// game's mean rating, the oldest first).
import { MatchState, resolveMode, Ticket } from '@spawnpoint/domain';
import { fillCandidate, fillOpen } from './backfill-fill';
import { OpenGame } from './open-matches';

const started = '2026-11-26T10:00:00.000Z';
const at = (s: number) => Date.parse(started) + s * 1000;
const iso = (s: number) => new Date(at(s)).toISOString();
const mode = resolveMode('refill', { teams: 2, playersPerTeam: 2, allowBackfill: true, backfillWindow: 60, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100, expandBy: 100, expandEvery: 10 }] });
const match = {
  status: 'running', matchId: 'm1', projectId: 'p1', config: 'ranked', mode: 'refill', region: 'eu-west', serverId: 's1', left: ['b'],
  lobbies: [{ lobbyId: 'a', ticket: 1, players: ['ann', 'amy'], rating: 1000, queuedAt: started }, { lobbyId: 'b', ticket: 1, players: ['bob'], rating: 1400, queuedAt: started }],
  teams: [['ann', 'amy'], ['cat']], requireConfirmation: false, confirmationTimeoutMs: 15_000, proposedAt: started, allowBackfill: true, playersPerTeam: 2, fill: null,
} as unknown as Extract<MatchState, { status: 'running' }>;
const game = (over: Partial<OpenGame> = {}): OpenGame & { free: number[] } => ({ match, startedAt: started, initial: [2, 2], override: null, free: [0, 1], ...over });
const ticket = (lobbyId: string, mmr: number[], queuedS: number, region = 'eu-west'): Ticket => ({
  lobbyId, ticket: 7, region, queuedAt: iso(queuedS), players: mmr.map((m, i) => ({ id: `${lobbyId}-${i}`, state: { mmr: m } })),
});

describe('fillOpen: when a game may take a fill', () => {
  it('within its window from the server start; not after', () => {
    expect(fillOpen(game(), mode, at(60))).toBe(true);
    expect(fillOpen(game(), mode, at(61))).toBe(false);
  });
  it("the game's opening override moves the window; its lock closes it; modes without backfill are never filled; role modes are", () => {
    expect(fillOpen(game({ override: { accepting: true, skillBand: null, deadline: iso(300) } }), mode, at(200))).toBe(true);
    expect(fillOpen(game({ override: { accepting: false, skillBand: null, deadline: iso(300) } }), mode, at(10))).toBe(false);
    expect(fillOpen(game(), { ...mode, allowBackfill: false }, at(10))).toBe(false);
    expect(fillOpen(game(), resolveMode('roles', { teams: 2, roles: { tank: { count: 1 } }, allowBackfill: true }), at(10))).toBe(true);
  });
});

describe('fillCandidate: which queued lobby fills it', () => {
  // the game's mean rating: the lobbies still in it (a: 1000; b left)
  it("the oldest lobby of the game's region that fits a team's free slots and lies in its own window of the game's mean", () => {
    const pick = fillCandidate(game(), mode, [
      ticket('far', [1500], 0), // 500 from the mean; its window after 20 s is 300
      ticket('elsewhere', [1000], 0, 'us-east'),
      ticket('duo', [1000, 1000], 0), // two players; one slot free
      ticket('newer', [1050], 15),
      ticket('older', [1080], 10),
    ], at(20));
    expect(pick).toEqual({ lobby: { lobbyId: 'older', ticket: 7, players: ['older-0'], rating: 1080, queuedAt: iso(10) }, team: 1 });
  });
  it("its window grows with its own wait: 1500 fills once it has waited 40 s (100 + 4 × 100)", () => {
    expect(fillCandidate(game(), mode, [ticket('far', [1500], 0)], at(39))).toBeNull();
    expect(fillCandidate(game(), mode, [ticket('far', [1500], 0)], at(40))?.lobby.lobbyId).toBe('far');
  });
  it("the game's skill band replaces the window: only ratings inside [min, max], whatever the wait", () => {
    const band = game({ override: { accepting: true, skillBand: { field: 'mmr', min: 1400, max: 1600 }, deadline: iso(300) } });
    const pick = fillCandidate(band, mode, [ticket('near', [1010], 0), ticket('low', [1390], 0), ticket('high', [1550], 5)], at(1));
    expect(pick?.lobby.lobbyId).toBe('high');
    expect(fillCandidate(band, mode, [ticket('near', [1010], 0)], at(1000))).toBeNull();
  });
  it('no free slot, no candidate', () => {
    expect(fillCandidate(game({ free: [0, 0] }), mode, [ticket('x', [1000], 0)], at(5))).toBeNull();
  });
});

describe('fillCandidate in a role mode: a freed role slot is filled by a queued lobby of that role', () => {
  // Two teams of a tank and two healers; the tank of team 0 (lobby t0) and a healer of team 1 (h1) left.
  const roleMode = resolveMode('roles', { teams: 2, roles: { tank: { count: 1 }, healer: { count: 2 } }, allowBackfill: true, backfillWindow: 60 });
  const roleMatch = {
    ...match, mode: 'roles', left: ['t0', 'h1'], playersPerTeam: 3,
    lobbies: [
      { lobbyId: 't0', ticket: 1, players: ['tina'], rating: 0, queuedAt: started, roles: ['tank'] },
      { lobbyId: 'hh0', ticket: 1, players: ['hal', 'hue'], rating: 0, queuedAt: started, roles: ['healer', 'healer'] },
      { lobbyId: 't1', ticket: 1, players: ['tom'], rating: 0, queuedAt: started, roles: ['tank'] },
      { lobbyId: 'h1', ticket: 1, players: ['hana'], rating: 0, queuedAt: started, roles: ['healer'] },
      { lobbyId: 'h2', ticket: 1, players: ['hugo'], rating: 0, queuedAt: started, roles: ['healer'] },
    ],
    teams: [['hal', 'hue'], ['tom', 'hugo']],
  } as unknown as Extract<MatchState, { status: 'running' }>;
  const roleGame = (over: Partial<OpenGame> = {}): OpenGame & { free: number[] } => ({ match: roleMatch, startedAt: started, initial: [3, 3], override: null, free: [1, 1], ...over });
  const roleTicket = (lobbyId: string, roles: (string | null)[], queuedS: number): Ticket => ({
    lobbyId, ticket: 7, region: 'eu-west', queuedAt: iso(queuedS), players: roles.map((role, i) => ({ id: `${lobbyId}-${i}`, state: role === null ? {} : { role } })),
  });

  it('a tank goes to the team that lost its tank, a healer to the one that lost a healer; each records its roles', () => {
    expect(fillCandidate(roleGame(), roleMode, [roleTicket('tank', ['tank'], 0)], at(5)))
      .toEqual({ lobby: { lobbyId: 'tank', ticket: 7, players: ['tank-0'], rating: 0, queuedAt: iso(0), roles: ['tank'] }, team: 0 });
    expect(fillCandidate(roleGame(), roleMode, [roleTicket('healer', ['healer'], 0)], at(5))).toMatchObject({ lobby: { lobbyId: 'healer', roles: ['healer'] }, team: 1 });
  });

  it('the oldest lobby whose roles fit a team wins; a lobby of a role no team lacks, of no role, or too big never does', () => {
    const pick = fillCandidate(roleGame(), roleMode, [
      roleTicket('two-healers', ['healer', 'healer'], 0), // no team lacks two healers
      roleTicket('no-role', [null], 1),
      roleTicket('dps', ['dps'], 2),
      roleTicket('late-tank', ['tank'], 9),
      roleTicket('early-healer', ['healer'], 4),
    ], at(10));
    expect(pick).toMatchObject({ lobby: { lobbyId: 'early-healer' }, team: 1 });
    expect(fillCandidate(roleGame(), roleMode, [roleTicket('two-healers', ['healer', 'healer'], 0), roleTicket('no-role', [null], 1)], at(10))).toBeNull();
  });

  it('a match whose players\' roles were not recorded is not filled', () => {
    const unknown = { ...roleMatch, lobbies: roleMatch.lobbies.map(({ roles: _roles, ...l }) => l) } as unknown as typeof roleMatch;
    expect(fillCandidate(roleGame({ match: unknown }), roleMode, [roleTicket('tank', ['tank'], 0)], at(5))).toBeNull();
  });
});
