// MatchQueue.explain: from the queue's own index, exactly what explainTicket gives over every ticket the
// queue holds (taken ones and parties the mode never takes included), on seeded random queues, before
// and after the index is kept through adds, updates, removes, steps and releases.
import { Ticket } from './engine';
import { explainTicket } from './explain';
import { MatchmakingMode, resolveMode } from './mode';
import { MatchQueue } from './queue';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const key = { projectId: 'p1', config: 'ranked' };
const ids = (lobbies: { lobbyId: string }[]) => `m-${lobbies.map((l) => l.lobbyId).join('+')}`;

/** mulberry32: a seeded PRNG (no Math.random in these specs). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const REGIONS = ['eu-west', 'us-east', 'ap-south'];
const SHAPES: [number, number][] = [[2, 1], [2, 1], [2, 2], [2, 3], [2, 5], [3, 2], [1, 4]];
const SIZES = [0, 1, 2, 3, 8, 20, 60, 150, 300];

/** Role sets of the random role modes (one reads dps from `class`). */
const ROLE_SETS: Record<string, { count: number; field?: string }>[] = [
  { tank: { count: 1 }, dps: { count: 2 } },
  { tank: { count: 1 }, healer: { count: 1 }, dps: { count: 2, field: 'class' } },
  { any: { count: 1 } },
];

/** A random mode; `roles`: always a role mode (else one in twenty). */
function randomMode(r: () => number, roles = false): MatchmakingMode {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const rules: Record<string, unknown>[] = [];
  if (r() < 0.75) {
    const expanding = r() < 0.6;
    rules.push({
      type: 'difference', field: 'mmr', maxDifference: pick([0, 0, 10, 50, 100, 300, 12.5]),
      expandEvery: expanding ? pick([1, 2, 5, 0.7]) : undefined, expandBy: expanding ? pick([50, 100, 33.3, 0]) : 0,
      maxExpansion: r() < 0.3 ? pick([200, 0, 75.5]) : undefined,
    });
  }
  if (r() < 0.3) rules.push({ type: 'equal', field: 'map' });
  if (r() < 0.1) rules.push({ type: 'equal', field: 'mode' });
  if (r() < 0.3) rules.push({ type: 'latency', maxMs: 60 + Math.floor(r() * 60) });
  const [teams, playersPerTeam] = pick(SHAPES);
  const raw: Record<string, unknown> = { teams, playersPerTeam, rules };
  if (r() < 0.4) raw.minPlayersPerTeam = 1 + Math.floor(r() * playersPerTeam);
  if (r() < 0.3) raw.maxPartySize = 1 + Math.floor(r() * (playersPerTeam + 1));
  if (roles || r() < 0.05) raw.roles = ROLE_SETS[Math.floor(r() * ROLE_SETS.length)];
  return resolveMode('m', raw);
}

let serial = 0;
function randomTicket(r: () => number, mode: MatchmakingMode, nowMs: number, span: number, lobbyId = `l${serial++}`): Ticket {
  const size = r() < 0.04 ? 0 : r() < 0.6 ? 1 : 1 + Math.floor(r() * (mode.playersPerTeam + 2));
  const players = Array.from({ length: size }, (_, p) => {
    const state: Record<string, unknown> = {};
    // Coarse ratings (ties, exact gaps) and fine ones (means of parties: gaps with rounding).
    if (r() < 0.93) state.mmr = r() < 0.05 ? -200 : r() < 0.5 ? Math.round(r() * span / 10) * 10 : Math.round(r() * span) + (r() < 0.3 ? 0.1 : 0);
    if (r() < 0.9) state.map = r() < 0.7 ? 'dust' : 'nuke';
    if (r() < 0.5) state.mode = r() < 0.8 ? 'ranked' : { casual: true };
    if (r() < 0.7) state.ping = Object.fromEntries(REGIONS.filter(() => r() < 0.6).map((x) => [x, Math.floor(r() * 150)]));
    if (mode.roles) {
      // Mostly a role of the mode (in its slot's field), sometimes none or one it does not have.
      const names = Object.keys(mode.roles);
      const role = names[Math.floor(r() * names.length)];
      const x = r();
      if (x < 0.85) state[mode.roles[role].field] = role;
      else if (x < 0.93) state.role = 'healer2';
    }
    return { id: `${lobbyId}-p${p}`, state };
  });
  let queuedAt = new Date(nowMs - Math.floor(r() * 30_000)).toISOString();
  if (r() < 0.03) queuedAt = queuedAt.replace(/\.(\d\d\d)Z$/, '.$1000Z'); // another ISO form
  if (r() < 0.01) queuedAt = '2026-11-24T10:00:03+00:00';
  if (r() < 0.005) queuedAt = 'not a time';
  return { lobbyId, ticket: 1 + Math.floor(r() * 3), region: REGIONS[Math.floor(r() * (r() < 0.5 ? 1 : REGIONS.length))], queuedAt, players };
}

const outcome = <T>(f: () => T): T | string => {
  try {
    return f();
  } catch (err) {
    return `threw ${String(err)}`;
  }
};

/**
 * Lobbies of the queue (all of a short one, 60 of a long one: explainTicket over 300 costs), at a few
 * times, against explainTicket over `held` (what the queue holds).
 */
function expectSame(r: () => number, queue: MatchQueue, mode: MatchmakingMode, held: Map<string, Ticket>, nows: number[]): number {
  const all = [...held.values()];
  let compared = 0;
  for (const nowMs of nows) {
    for (const t of all.length <= 60 ? all : all.filter(() => r() < 60 / all.length)) {
      // (A queue time Date.parse cannot read throws, with a growing window, in both.)
      expect(outcome(() => queue.explain(t.lobbyId, at(nowMs - T0)))).toEqual(outcome(() => explainTicket(mode, t, all, at(nowMs - T0))));
      compared++;
    }
  }
  return compared;
}

describe('MatchQueue.explain', () => {
  it('gives what explainTicket gives over every held ticket, on seeded random queues, as the queue changes', () => {
    const codes = new Set<string>();
    let compared = 0;
    let candidates = 0;
    let roleShort = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const r = prng(seed);
      // Seeds past 160: role modes.
      const mode = randomMode(r, seed > 160);
      const span = [300, 1000, 3000][Math.floor(r() * 3)];
      let nowMs = T0 + 30_000;
      const queue = new MatchQueue(key, mode);
      const held = new Map<string, Ticket>();
      const size = SIZES[Math.floor(r() * SIZES.length)];
      const put = (t: Ticket) => {
        queue.add(t);
        held.set(t.lobbyId, t);
      };
      for (let k = 0; k < size; k++) put(randomTicket(r, mode, nowMs, span));
      expect(queue.explain('absent', at(0))).toBeNull();
      // A first step takes some lobbies (still held: explain counts them).
      const taken = queue.step(at(nowMs - T0), ids).flatMap((m) => m.lobbies.map((l) => l.lobbyId));
      // Now, and one of: before every queue time, a little later, much later (windows at their widest).
      const nows = () => [nowMs, nowMs + [-40_000, Math.floor(r() * 20_000), 300_000][Math.floor(r() * 3)]];
      compared += expectSame(r, queue, mode, held, nows());
      for (const t of held.values()) {
        const e = outcome(() => queue.explain(t.lobbyId, at(nowMs - T0))!);
        if (typeof e === 'string') continue;
        candidates += e.candidates;
        for (const b of e.blockedBy) {
          codes.add(b.code);
          if (b.code === 'not_enough_players' && b.role) roleShort++;
        }
      }
      // Then kept: adds, updates (also of taken lobbies), removes, releases, another step.
      for (let round = 0; round < 2; round++) {
        nowMs += Math.floor(r() * 5_000);
        for (let k = Math.floor(r() * (size / 3 + 3)); k > 0; k--) put(randomTicket(r, mode, nowMs, span));
        const heldIds = [...held.keys()];
        for (let k = Math.floor(r() * (size / 5 + 2)); k > 0 && heldIds.length; k--) {
          put(randomTicket(r, mode, nowMs, span, heldIds[Math.floor(r() * heldIds.length)]));
        }
        for (let k = Math.floor(r() * (size / 5 + 2)); k > 0 && heldIds.length; k--) {
          const id = heldIds[Math.floor(r() * heldIds.length)];
          queue.remove(id);
          held.delete(id);
        }
        for (const id of taken.splice(0)) {
          if (r() < 0.5) queue.release(id);
          else if (r() < 0.5) {
            queue.remove(id);
            held.delete(id);
          }
        }
        taken.push(...queue.step(at(nowMs - T0), ids).flatMap((m) => m.lobbies.map((l) => l.lobbyId)));
        expect(queue.size).toBe(held.size);
        compared += expectSame(r, queue, mode, held, nows());
      }
    }
    expect(compared).toBeGreaterThan(15_000);
    expect(candidates).toBeGreaterThan(10_000); // the cases have candidates, not only misses
    expect(roleShort).toBeGreaterThan(50); // role modes: a role short among the candidates
    expect([...codes].sort()).toEqual([
      'equal_rule', 'latency_above_max', 'no_candidate_in_window', 'no_common_region', 'not_enough_players', 'party_too_large', 'role_full', 'role_missing',
    ]);
  });

  it('a taken lobby and a party the mode never takes still count; a lobby of another region does not', () => {
    const duel = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100 }] });
    const ticket = (lobbyId: string, mmr: number[], region = 'eu-west'): Ticket =>
      ({ lobbyId, ticket: 1, region, queuedAt: at(0), players: mmr.map((x, i) => ({ id: `${lobbyId}-${i}`, state: { mmr: x } })) });
    const queue = new MatchQueue(key, duel);
    for (const t of [ticket('a', [1000]), ticket('b', [1050]), ticket('c', [2000]), ticket('duo', [1990, 2000]), ticket('far', [2000], 'us-east')]) queue.add(t);
    expect(queue.step(at(1000), ids).map((m) => m.lobbies.map((l) => l.lobbyId))).toEqual([['a', 'b']]);
    expect(queue.isTaken('a')).toBe(true);
    expect(queue.explain('a', at(1000))).toMatchObject({ candidates: 1, nearestGap: 50, blockedBy: [] }); // b, taken, still counts
    expect(queue.explain('c', at(1000))).toEqual({
      currentRule: { field: 'mmr', maxDifference: 100, nextExpansionAt: null }, rating: 2000, candidates: 0, nearestGap: 5,
      blockedBy: [
        { code: 'no_candidate_in_window', rating: 2000, maxDifference: 100, nearestGap: 5, nextExpansionAt: null },
        { code: 'not_enough_players', playersAvailable: 1, playersNeeded: 2 },
      ],
    });
    expect(queue.explain('duo', at(1000))!.blockedBy[0]).toEqual({ code: 'party_too_large', partySize: 2, maxPartySize: 1 });
    queue.remove('b');
    expect(queue.explain('a', at(1000))).toMatchObject({ candidates: 0, nearestGap: 995 });
    expect(queue.explain('b', at(1000))).toBeNull();
  });

  it('a rating that overflows to ±∞ is explained as explainTicket does (by scanning the queue)', () => {
    const duel = resolveMode('duel', { teams: 2, playersPerTeam: 2, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: 1, expandBy: 1e308 }] });
    const ticket = (lobbyId: string, mmr: number[]): Ticket =>
      ({ lobbyId, ticket: 1, region: 'eu-west', queuedAt: at(0), players: mmr.map((x, i) => ({ id: `${lobbyId}-${i}`, state: { mmr: x } })) });
    const tickets = [ticket('a', [1e308, 1e308]), ticket('b', [1e308, 1e308]), ticket('c', [1000]), ticket('d', [-1e308, -1e308])];
    const queue = new MatchQueue(key, duel);
    for (const t of tickets) queue.add(t);
    for (const t of tickets) for (const now of [at(0), at(5000)]) expect(queue.explain(t.lobbyId, now)).toEqual(explainTicket(duel, t, tickets, now));
    queue.remove('a');
    queue.remove('b');
    queue.remove('d');
    expect(queue.explain('c', at(0))).toEqual(explainTicket(duel, tickets[2], [tickets[2]], at(0)));
  });
});
