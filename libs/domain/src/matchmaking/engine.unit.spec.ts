// The matching step: given these queued lobbies at this time, then these matches.
import { formMatches, Ticket } from './engine';
import { explainTicket } from './explain';
import { resolveMode } from './mode';
import { referenceFormMatches } from './testing';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const key = { projectId: 'p1', config: 'ranked' };
const ids = (lobbies: { lobbyId: string }[]) => `m-${lobbies.map((l) => l.lobbyId).join('+')}`;
const difference = { type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: 2, expandBy: 100 };
const duel = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [difference] });

let n = 0;
function ticket(lobbyId: string, mmr: number[] | number, extra: Partial<Ticket> = {}, state: Record<string, unknown> = {}): Ticket {
  const ratings = Array.isArray(mmr) ? mmr : [mmr];
  return { lobbyId, ticket: 2, region: 'eu-west', queuedAt: at(n++), players: ratings.map((r, i) => ({ id: `${lobbyId}-p${i}`, state: { mmr: r, ...state } })), ...extra };
}
const lobbiesOf = (ms: ReturnType<typeof formMatches>) => ms.map((m) => m.lobbies.map((l) => l.lobbyId));

beforeEach(() => {
  n = 0;
});

describe('formMatches', () => {
  it('1000 and 1450 (base 100, +100 every 2 s) match once their windows reach 450 at 8 s, not before', () => {
    const q = [ticket('a', 1000, { queuedAt: at(0) }), ticket('b', 1450, { queuedAt: at(0) })];
    expect(formMatches(key, duel, q, at(7_999), ids)).toEqual([]);
    const [m] = formMatches(key, duel, q, at(8_000), ids);
    expect(m).toMatchObject({ matchId: 'm-a+b', projectId: 'p1', config: 'ranked', mode: 'duel', region: 'eu-west', requireConfirmation: false, confirmationTimeoutMs: 15_000 });
    expect(m.lobbies).toEqual([
      { lobbyId: 'a', ticket: 2, players: ['a-p0'], rating: 1000, queuedAt: at(0) },
      { lobbyId: 'b', ticket: 2, players: ['b-p0'], rating: 1450, queuedAt: at(0) },
    ]);
    expect(m.teams.map((t) => t.length)).toEqual([1, 1]);
  });

  it('windows are mutual: a new lobby with a narrow window does not match an old one far away', () => {
    const q = [ticket('old', 1000, { queuedAt: at(0) }), ticket('new', 1400, { queuedAt: at(9_000) })];
    // at 10 s old's window is 600, new's (1 s in queue) 100
    expect(formMatches(key, duel, q, at(10_000), ids)).toEqual([]);
    expect(lobbiesOf(formMatches(key, duel, q, at(15_000), ids))).toEqual([['old', 'new']]); // new's window: 100 + 300 = 400
  });

  it('the oldest lobby anchors and takes the nearest rating; the rest wait', () => {
    const q = [ticket('a', 1000), ticket('b', 1090), ticket('c', 1040), ticket('d', 2000)];
    expect(lobbiesOf(formMatches(key, duel, q, at(100), ids))).toEqual([['a', 'c']]);
  });

  it('matches only lobbies of one region without a latency rule; with one, where every ping allows', () => {
    expect(formMatches(key, duel, [ticket('a', 1000), ticket('b', 1000, { region: 'us-east' })], at(100), ids)).toEqual([]);
    const latency = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [difference, { type: 'latency', maxMs: 80 }] });
    const q = [ticket('a', 1000, {}, { ping: { 'eu-west': 30, 'us-east': 90 } }), ticket('b', 1000, { region: 'us-east' }, { ping: { 'eu-west': 70, 'us-east': 20 } })];
    const [m] = formMatches(key, latency, q, at(100), ids);
    expect(m.region).toBe('eu-west');
  });

  it('keeps parties whole and balances team rating sums (2v2: a duo against two solos)', () => {
    const twos = resolveMode('twos', { teams: 2, playersPerTeam: 2, rules: [{ ...difference, maxDifference: 1000 }] });
    const [m] = formMatches(key, twos, [ticket('duo', [1100, 1100]), ticket('s1', 1000), ticket('s2', 1200)], at(100), ids);
    expect(m.teams).toContainEqual(['duo-p0', 'duo-p1']);
    expect(m.teams.find((t) => !t.includes('duo-p0'))!.sort()).toEqual(['s1-p0', 's2-p0']);
    const solos = formMatches(key, twos, [ticket('w', 1000), ticket('x', 1100), ticket('y', 1200), ticket('z', 1300)], at(100), ids)[0];
    const sums = solos.teams.map((t) => t.reduce((s, p) => s + ({ 'w-p0': 1000, 'x-p0': 1100, 'y-p0': 1200, 'z-p0': 1300 } as Record<string, number>)[p], 0));
    expect(sums).toEqual([2300, 2300]);
  });

  it('starts short only after the first expansion, and never below minPlayersPerTeam', () => {
    const squads = resolveMode('squads', { teams: 2, playersPerTeam: 2, minPlayersPerTeam: 1, rules: [difference] });
    const q = [ticket('a', 1000, { queuedAt: at(0) }), ticket('b', 1000, { queuedAt: at(0) })];
    expect(formMatches(key, squads, q, at(1_999), ids)).toEqual([]);
    expect(lobbiesOf(formMatches(key, squads, q, at(2_000), ids))).toEqual([['a', 'b']]);
    expect(formMatches(key, squads, [ticket('alone', 1000, { queuedAt: at(0) })], at(60_000), ids)).toEqual([]);
  });

  it('keeps the equal rules, and leaves out a party larger than a team', () => {
    const same = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [difference, { type: 'equal', field: 'map' }] });
    expect(formMatches(key, same, [ticket('a', 1000, {}, { map: 'dust' }), ticket('b', 1000, {}, { map: 'nuke' })], at(100), ids)).toEqual([]);
    expect(lobbiesOf(formMatches(key, same, [ticket('a', 1000, {}, { map: 'dust' }), ticket('b', 1000, {}, { map: 'nuke' }), ticket('c', 1000, {}, { map: 'dust' })], at(100), ids)))
      .toEqual([['a', 'c']]);
    expect(formMatches(key, duel, [ticket('big', [1000, 1000]), ticket('b', 1000)], at(100), ids)).toEqual([]);
  });

  it('forms many matches in one step, each lobby in at most one', () => {
    const q = Array.from({ length: 200 }, (_, i) => ticket(`l${i}`, 1000 + (i % 50) * 3));
    const ms = formMatches(key, duel, q, at(100), ids);
    const used = ms.flatMap((m) => m.lobbies.map((l) => l.lobbyId));
    expect(ms).toHaveLength(100);
    expect(new Set(used).size).toBe(used.length);
  });

  it('without a difference rule, a queue too short for a match stays waiting (the walk stops at both ends)', () => {
    const open = resolveMode('open', { teams: 2, playersPerTeam: 2 });
    expect(formMatches(key, open, [ticket('a', 1000), ticket('b', 1000)], at(100), ids)).toEqual([]);
    expect(lobbiesOf(formMatches(key, open, ['a', 'b', 'c', 'd'].map((id) => ticket(id, 1000)), at(100), ids))).toEqual([['a', 'b', 'c', 'd']]);
  });

  it('large 5v5 queues with parties (where the walk jumps over party sizes that cannot join) match as the first step did', () => {
    let seed = 11;
    const r = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (const [teams, playersPerTeam, parties] of [[2, 5, 0.3], [2, 5, 0.9], [2, 4, 0.5], [3, 3, 0.5]]) {
      const mode = resolveMode('m', { teams, playersPerTeam, rules: [{ ...difference, maxDifference: 50 }] });
      const q = Array.from({ length: 4000 }, (_, i) => ticket(`q${i}`, Array.from({ length: r() < parties ? (r() < 0.7 ? 2 : 3) : 1 }, () => Math.round(r() * 3000)), { queuedAt: at(Math.floor(r() * 30_000)) }));
      const expected = referenceFormMatches(key, mode, q, at(40_000), ids);
      expect(expected.length).toBeGreaterThan(100);
      expect(formMatches(key, mode, q, at(40_000), ids)).toEqual(expected);
    }
  });
});

describe('formMatches in role modes (1 tank + 2 dps per team, two teams)', () => {
  const roles = resolveMode('roles', { teams: 2, roles: { tank: { count: 1 }, dps: { count: 2 } }, rules: [{ ...difference, maxDifference: 500 }] });
  /** A lobby whose players have these roles (and ratings). */
  const party = (lobbyId: string, players: [string | null, number][], extra: Partial<Ticket> = {}): Ticket => ({
    lobbyId, ticket: 1, region: 'eu-west', queuedAt: at(n++),
    players: players.map(([role, mmr], i) => ({ id: `${lobbyId}-p${i}`, state: role === null ? { mmr } : { role, mmr } })), ...extra,
  });
  const roleOf = (q: Ticket[]) => new Map(q.flatMap((t) => t.players.map((p) => [p.id, p.state.role as string])));
  const mmrOf = (q: Ticket[]) => new Map(q.flatMap((t) => t.players.map((p) => [p.id, p.state.mmr as number])));
  const roleCounts = (q: Ticket[], team: string[]) => team.map((id) => roleOf(q).get(id)).sort();
  const sortedLobbies = (ms: ReturnType<typeof formMatches>) => lobbiesOf(ms).map((l) => l.sort());

  it('fills two teams of 1 tank + 2 dps from solo players, each team exactly its role slots, sums balanced', () => {
    const q = [party('t1', [['tank', 1500]]), party('d1', [['dps', 1400]]), party('d2', [['dps', 1300]]), party('d3', [['dps', 1200]]), party('t2', [['tank', 1000]]), party('d4', [['dps', 1100]])];
    const ms = formMatches(key, roles, q, at(100), ids);
    expect(ms).toHaveLength(1);
    const [m] = ms;
    expect(m.lobbies.map((l) => l.lobbyId).sort()).toEqual(['d1', 'd2', 'd3', 'd4', 't1', 't2']);
    for (const team of m.teams) expect(roleCounts(q, team)).toEqual(['dps', 'dps', 'tank']);
    const sums = m.teams.map((t) => t.reduce((s, id) => s + mmrOf(q).get(id)!, 0));
    expect(Math.abs(sums[0] - sums[1])).toBe(100); // 7,500 in all: 3,800 vs 3,700 is the best the roles allow
  });

  it('a duo (tank + dps) stays on one team; the solos fill the free slots', () => {
    const q = [party('duo', [['tank', 1200], ['dps', 1200]]), party('t', [['tank', 1000]]), party('d1', [['dps', 1100]]), party('d2', [['dps', 1000]]), party('d3', [['dps', 1300]])];
    const [m] = formMatches(key, roles, q, at(100), ids);
    const duoTeam = m.teams.find((t) => t.includes('duo-p0'))!;
    expect(duoTeam).toContain('duo-p1');
    for (const team of m.teams) expect(roleCounts(q, team)).toEqual(['dps', 'dps', 'tank']);
    expect(m.teams.find((t) => t !== duoTeam)).toContain('t-p0');
    // Each lobby records its players' roles, in their order: a freed slot is refilled by its role (engine backfill).
    expect(m.lobbies.find((l) => l.lobbyId === 'duo')).toMatchObject({ players: ['duo-p0', 'duo-p1'], roles: ['tank', 'dps'] });
    for (const l of m.lobbies) expect(l.roles).toEqual(l.players.map((id) => roleOf(q).get(id)));
  });

  it('a party that fits no team\'s free slots waits: (tank, dps) twice, then (dps, dps) cannot join; two solo dps can', () => {
    const q = [party('a', [['tank', 1000], ['dps', 1000]]), party('b', [['tank', 1000], ['dps', 1000]]), party('c', [['dps', 1000], ['dps', 1000]]), party('x', [['dps', 1010]]), party('y', [['dps', 1020]])];
    expect(sortedLobbies(formMatches(key, roles, q, at(100), ids))).toEqual([['a', 'b', 'x', 'y']]);
  });

  it('only full matches: without a second tank nothing forms, even after expansions with minPlayersPerTeam below the slots', () => {
    const short = resolveMode('roles', { teams: 2, minPlayersPerTeam: 1, roles: { tank: { count: 1 }, dps: { count: 2 } }, rules: [difference] });
    const q = [party('t', [['tank', 1000]], { queuedAt: at(0) }), ...['d1', 'd2', 'd3', 'd4', 'd5'].map((id) => party(id, [['dps', 1000]], { queuedAt: at(0) }))];
    expect(formMatches(key, short, q, at(60_000), ids)).toEqual([]);
    expect(explainTicket(short, q[0], q, at(60_000)).blockedBy).toEqual([{ code: 'not_enough_players', role: 'tank', playersAvailable: 1, playersNeeded: 2 }]);
    expect(lobbiesOf(formMatches(key, short, [...q, party('t2', [['tank', 1000]], { queuedAt: at(0) })], at(60_000), ids))).toHaveLength(1);
  });

  it('a lobby whose player has no role (or one the mode does not have) never matches; explain says role_missing', () => {
    const q = [party('none', [[null, 1000]]), party('odd', [['healer', 1000]]), party('t1', [['tank', 1000]]), party('t2', [['tank', 1000]]), ...['d1', 'd2', 'd3', 'd4'].map((id) => party(id, [['dps', 1000]]))];
    expect(sortedLobbies(formMatches(key, roles, q, at(100), ids))).toEqual([['d1', 'd2', 'd3', 'd4', 't1', 't2']]);
    expect(formMatches(key, roles, [party('t', [['tank', 1000], [null, 1000]]), party('x', [['tank', 1000]]), ...['d1', 'd2', 'd3'].map((id) => party(id, [['dps', 1000]]))], at(100), ids)).toEqual([]);
    expect(explainTicket(roles, q[0], q, at(100)).blockedBy).toContainEqual({ code: 'role_missing', playerId: 'none-p0' });
    expect(explainTicket(roles, q[1], q, at(100)).blockedBy).toContainEqual({ code: 'role_missing', playerId: 'odd-p0' });
    expect(explainTicket(roles, q[2], q, at(100)).blockedBy).toEqual([]); // 5 role-eligible candidates; the others do not count
    expect(explainTicket(roles, q[2], q, at(100)).candidates).toBe(5);
  });

  it('a lobby asking for more of a role than a team holds never matches; explain says role_full', () => {
    const q = [party('tanks', [['tank', 1000], ['tank', 1000]]), party('t', [['tank', 1000]]), ...['d1', 'd2', 'd3', 'd4'].map((id) => party(id, [['dps', 1000]]))];
    expect(formMatches(key, roles, q, at(100), ids)).toEqual([]);
    expect(explainTicket(roles, q[0], q, at(100)).blockedBy).toContainEqual({ code: 'role_full', role: 'tank', count: 1 });
    const trio = party('trio', [['dps', 1000], ['dps', 1000], ['dps', 1000]]);
    expect(explainTicket(roles, trio, [trio], at(100)).blockedBy.slice(0, 1)).toEqual([{ code: 'role_full', role: 'dps', count: 2 }]);
  });

  it('windows stay mutual: an old tank with a wide window does not take a new dps with a narrow one far away', () => {
    const mode = resolveMode('roles', { teams: 1, roles: { tank: { count: 1 }, dps: { count: 1 } }, rules: [difference] });
    const q = [party('old', [['tank', 1000]], { queuedAt: at(0) }), party('new', [['dps', 1400]], { queuedAt: at(9_000) })];
    expect(formMatches(key, mode, q, at(10_000), ids)).toEqual([]); // old's window 600, new's 100
    expect(lobbiesOf(formMatches(key, mode, q, at(15_000), ids))).toEqual([['old', 'new']]); // new's window 400
  });

  it('reads each role from its slot\'s field, and keeps region and equal rules', () => {
    const raid = resolveMode('raid', { teams: 1, roles: { tank: { count: 1 }, dps: { count: 2, field: 'class' } }, rules: [{ type: 'equal', field: 'map' }] });
    const p = (lobbyId: string, state: Record<string, unknown>, region = 'eu-west'): Ticket => ({ lobbyId, ticket: 1, region, queuedAt: at(n++), players: [{ id: lobbyId, state: { map: 'dust', ...state } }] });
    const q = [p('t', { role: 'tank' }), p('far', { class: 'dps' }, 'us-east'), p('nuke', { class: 'dps', map: 'nuke' }), p('roleDps', { role: 'dps' }), p('d1', { class: 'dps' }), p('d2', { class: 'dps' })];
    expect(sortedLobbies(formMatches(key, raid, q, at(100), ids))).toEqual([['d1', 'd2', 't']]);
    expect(explainTicket(raid, q[3], q, at(100)).blockedBy).toContainEqual({ code: 'role_missing', playerId: 'roleDps' });
  });
});
