// MatchQueue: the queue kept between steps gives, step after step, exactly what formMatches gives over the
// tickets it holds (and both what the first, straightforward step gave: testing.ts), and takes the
// lobbies it proposes until the caller removes or releases them.
import { formMatches, Ticket } from './engine';
import { MatchmakingMode, resolveMode } from './mode';
import type { MatchProposal } from './match';
import { MatchQueue } from './queue';
import { allowedDifference } from './rating';
import { referenceFormMatches } from './testing';

const T0 = Date.parse('2026-11-24T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const key = { projectId: 'p1', config: 'ranked' };
const ids = (lobbies: { lobbyId: string }[]) => `m-${lobbies.map((l) => l.lobbyId).join('+')}`;
const lobbiesOf = (ms: { lobbies: { lobbyId: string }[] }[]) => ms.map((m) => m.lobbies.map((l) => l.lobbyId));

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
const SHAPES: [number, number][] = [[2, 1], [2, 2], [2, 3], [2, 5], [3, 2], [4, 1], [2, 7], [1, 4], [5, 3]];

/** Role sets of the random role modes (one reads dps from `class`). */
const ROLE_SETS: Record<string, { count: number; field?: string }>[] = [
  { tank: { count: 1 }, dps: { count: 2 } },
  { tank: { count: 1 }, healer: { count: 1 }, dps: { count: 2, field: 'class' } },
  { any: { count: 1 } },
  { tank: { count: 1 }, dps: { count: 3 }, support: { count: 1 } },
];

/** A random mode; `roles`: a role mode (its team count from SHAPES, its slots from ROLE_SETS). */
function randomMode(r: () => number, roles = false): MatchmakingMode {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const rules: Record<string, unknown>[] = [];
  if (r() < 0.85) {
    rules.push({
      type: 'difference', field: 'mmr', maxDifference: pick([0, 50, 100, 300]), expandEvery: r() < 0.7 ? pick([1, 2, 5]) : undefined,
      expandBy: 50 + Math.floor(r() * 100), maxExpansion: r() < 0.3 ? 200 : undefined,
    });
  }
  if (r() < 0.25) rules.push({ type: 'equal', field: 'map' });
  if (r() < 0.25) rules.push({ type: 'latency', maxMs: 60 + Math.floor(r() * 60) });
  const [teams, playersPerTeam] = pick(SHAPES);
  const raw: Record<string, unknown> = { teams, playersPerTeam, rules, regions: r() < 0.3 ? 'host' : 'vote' };
  if (r() < 0.4) raw.minPlayersPerTeam = 1 + Math.floor(r() * playersPerTeam);
  if (r() < 0.3) raw.maxPartySize = 1 + Math.floor(r() * (playersPerTeam + 1));
  if (roles) raw.roles = pick(ROLE_SETS);
  return resolveMode('m', raw);
}

let serial = 0;
function randomTicket(r: () => number, mode: MatchmakingMode, nowMs: number, span: number, lobbyId = `l${serial++}`): Ticket {
  const size = r() < 0.02 ? 0 : r() < 0.6 ? 1 : 1 + Math.floor(r() * (mode.playersPerTeam + 1));
  const players = Array.from({ length: size }, (_, p) => {
    const state: Record<string, unknown> = {};
    if (r() < 0.95) state.mmr = r() < 0.05 ? -200 : Math.round(r() * span) + (r() < 0.2 ? 0.5 : 0);
    if (r() < 0.9) state.map = r() < 0.7 ? 'dust' : 'nuke';
    if (r() < 0.7) state.ping = Object.fromEntries(REGIONS.filter(() => r() < 0.8).map((x) => [x, Math.floor(r() * 150)]));
    if (mode.roles) {
      // Mostly a role of the mode (in its slot's field), sometimes none or one it does not have.
      const names = Object.keys(mode.roles);
      const role = names[Math.floor(r() * names.length)];
      const x = r();
      if (x < 0.9) state[mode.roles[role].field] = role;
      else if (x < 0.95) state.role = 'healer2';
    }
    return { id: `${lobbyId}-p${p}-${serial++}`, state };
  });
  let queuedAt = new Date(nowMs - Math.floor(r() * 30_000)).toISOString();
  if (r() < 0.03) queuedAt = queuedAt.replace('.000Z', 'Z').replace(/\.(\d\d\d)Z$/, '.$1000Z'); // other ISO forms: string order
  if (r() < 0.01) queuedAt = '2026-11-24T10:00:03+00:00';
  return { lobbyId, ticket: 1 + Math.floor(r() * 3), region: REGIONS[Math.floor(r() * REGIONS.length)], queuedAt, players };
}

/** Role modes: the rules a proposal must keep (the reference step does not match roles; this checks them). */
function expectRoleMatches(mode: MatchmakingMode, tickets: Ticket[], nowMs: number, proposals: MatchProposal[]): void {
  const roles = mode.roles!;
  const byId = new Map(tickets.map((t) => [t.lobbyId, t]));
  const roleOf = (state: Record<string, unknown>) => Object.keys(roles).find((role) => state[roles[role].field] === role);
  const rule = mode.rules.find((x) => x.type === 'difference');
  const used = new Set<string>();
  for (const m of proposals) {
    expect(m.teams).toHaveLength(mode.teams);
    const team = new Map(m.teams.flatMap((players, i) => players.map((id) => [id, i])));
    const lobbies = m.lobbies.map((l) => byId.get(l.lobbyId)!);
    for (const t of lobbies) {
      expect(used.has(t.lobbyId)).toBe(false);
      used.add(t.lobbyId);
      expect(t.players.length).toBeLessThanOrEqual(mode.maxPartySize);
      expect(new Set(t.players.map((p) => team.get(p.id))).size).toBe(1); // the party on one team
      if (!mode.rules.some((x) => x.type === 'latency')) expect(t.region).toBe(m.region);
    }
    for (let i = 0; i < mode.teams; i++) {
      const counts: Record<string, number> = {};
      for (const t of lobbies) for (const p of t.players) if (team.get(p.id) === i) counts[roleOf(p.state)!] = (counts[roleOf(p.state)!] ?? 0) + 1;
      expect(counts).toEqual(Object.fromEntries(Object.entries(roles).map(([role, slot]) => [role, slot.count])));
    }
    if (rule && rule.type === 'difference') {
      for (const a of m.lobbies) {
        for (const b of m.lobbies) {
          const waited = Math.max(0, nowMs - Date.parse(a.queuedAt));
          expect(Math.abs(a.rating - b.rating)).toBeLessThanOrEqual(allowedDifference(rule, waited));
        }
      }
    }
  }
}

describe('MatchQueue', () => {
  it('gives what formMatches (and the first straightforward step) gives, on 300 seeded random queues', () => {
    let matches = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = prng(seed);
      const mode = randomMode(r);
      const nowMs = T0 + 30_000 + Math.floor(r() * 20_000);
      const tickets = Array.from({ length: [2, 5, 20, 100, 400][Math.floor(r() * 5)] }, () => randomTicket(r, mode, nowMs, r() < 0.5 ? 3000 : 300));
      const queue = new MatchQueue(key, mode);
      for (const t of tickets) queue.add(t);
      const expected = referenceFormMatches(key, mode, tickets, at(nowMs - T0), ids);
      expect(formMatches(key, mode, tickets, at(nowMs - T0), ids)).toEqual(expected);
      expect(queue.step(at(nowMs - T0), ids)).toEqual(expected);
      matches += expected.length;
    }
    expect(matches).toBeGreaterThan(1000); // the cases match, not only miss
  });

  it('role modes: gives what formMatches gives, on 200 seeded random role queues, every proposal keeping the roles, parties and windows', () => {
    let matches = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const r = prng(5000 + seed);
      const mode = randomMode(r, true);
      const nowMs = T0 + 30_000 + Math.floor(r() * 20_000);
      const tickets = Array.from({ length: [2, 6, 20, 100, 400][Math.floor(r() * 5)] }, () => randomTicket(r, mode, nowMs, r() < 0.5 ? 3000 : 300));
      const queue = new MatchQueue(key, mode);
      for (const t of tickets) queue.add(t);
      const expected = formMatches(key, mode, tickets, at(nowMs - T0), ids);
      expectRoleMatches(mode, tickets, nowMs, expected);
      expect(queue.step(at(nowMs - T0), ids)).toEqual(expected);
      matches += expected.length;
    }
    expect(matches).toBeGreaterThan(500);
  });

  it('step after step (adds, updates, removes, releases, time passing) it gives what formMatches gives over tickets()', () => {
    let roleMatches = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const r = prng(1000 + seed);
      // Seeds past 60: role modes (the reference step does not match them: formMatches is the expectation).
      const mode = randomMode(r, seed > 60);
      const queue = new MatchQueue(key, mode);
      let nowMs = T0 + 5_000;
      const held: string[] = [];
      const taken: string[] = [];
      for (let tick = 0; tick < 12; tick++) {
        nowMs += Math.floor(r() * 3_000);
        for (let k = Math.floor(r() * 40); k > 0; k--) {
          const t = randomTicket(r, mode, nowMs, 1000);
          queue.add(t);
          held.push(t.lobbyId);
        }
        // Some updates (new revisions), removals and releases of taken lobbies.
        for (let k = Math.floor(r() * 5); k > 0 && held.length; k--) {
          const id = held[Math.floor(r() * held.length)];
          if (queue.has(id)) queue.update(randomTicket(r, mode, nowMs, 1000, id));
        }
        for (let k = Math.floor(r() * 5); k > 0 && held.length; k--) queue.remove(held[Math.floor(r() * held.length)]);
        for (const id of taken.splice(0)) {
          if (r() < 0.5) queue.release(id);
          else queue.remove(id);
        }
        const expected = mode.roles
          ? formMatches(key, mode, queue.tickets(), at(nowMs - T0), ids)
          : referenceFormMatches(key, mode, queue.tickets(), at(nowMs - T0), ids);
        if (mode.roles) {
          expectRoleMatches(mode, queue.tickets(), nowMs, expected);
          roleMatches += expected.length;
        }
        const got = queue.step(at(nowMs - T0), ids);
        expect(got).toEqual(expected);
        for (const m of got) for (const l of m.lobbies) taken.push(l.lobbyId);
      }
    }
    expect(roleMatches).toBeGreaterThan(50);
  });

  it('a step that can only repeat an empty one is skipped, and every step still gives what formMatches gives as time passes', () => {
    let skipped = 0;
    let formedAfterQuiet = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const r = prng(5000 + seed);
      const mode = randomMode(r, seed > 90);
      const queue = new MatchQueue(key, mode);
      let nowMs = T0 + 5_000;
      for (let tick = 0; tick < 30; tick++) {
        // Mostly time alone passing (windows cross their expansions), sometimes a change.
        nowMs += Math.floor(r() * 1_500);
        if (tick === 0 || r() < 0.15) for (let k = 1 + Math.floor(r() * 30); k > 0; k--) queue.add(randomTicket(r, mode, nowMs, 3000));
        const before = queue.skipped;
        const expected = formMatches(key, mode, queue.tickets(), at(nowMs - T0), ids);
        const got = queue.step(at(nowMs - T0), ids);
        expect(got).toEqual(expected);
        if (queue.skipped > before) expect(expected).toEqual([]);
        if (queue.skipped === before && got.length > 0 && tick > 0) formedAfterQuiet++;
        // Matched lobbies leave (as the matcher removes them once reserved).
        for (const m of got) for (const l of m.lobbies) queue.remove(l.lobbyId);
      }
      skipped += queue.skipped;
    }
    // Both happen: steps skipped, and matches formed later by windows grown with time alone.
    expect(skipped).toBeGreaterThan(200);
    expect(formedAfterQuiet).toBeGreaterThan(20);
  });

  it('a queue that cannot match costs a step nothing until a ticket comes or a window grows', () => {
    const fixed = resolveMode('fixed', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 0 }] });
    const queue = new MatchQueue(key, fixed);
    for (let i = 0; i < 100; i++) queue.add({ lobbyId: `n${i}`, ticket: 1, region: 'eu-west', queuedAt: at(0), players: [{ id: `p${i}`, state: { mmr: i * 10 } }] });
    expect(queue.step(at(1_000), ids)).toEqual([]);
    expect(queue.step(at(2_000), ids)).toEqual([]);
    expect(queue.step(at(60_000), ids)).toEqual([]);
    expect(queue.skipped).toBe(2);
    queue.add({ lobbyId: 'twin', ticket: 1, region: 'eu-west', queuedAt: at(61_000), players: [{ id: 'pt', state: { mmr: 10 } }] });
    expect(lobbiesOf(queue.step(at(61_000), ids))).toEqual([['n1', 'twin']]);
    // With expansion (+100 every 2 s): quiet until the first lobby's window grows, then the step runs again.
    const growing = new MatchQueue(key, resolveMode('grow', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 0, expandEvery: 2, expandBy: 100 }] }));
    growing.add({ lobbyId: 'a', ticket: 1, region: 'eu-west', queuedAt: at(0), players: [{ id: 'pa', state: { mmr: 1000 } }] });
    growing.add({ lobbyId: 'b', ticket: 1, region: 'eu-west', queuedAt: at(500), players: [{ id: 'pb', state: { mmr: 1100 } }] });
    expect(growing.step(at(100), ids)).toEqual([]);
    expect(growing.step(at(1_900), ids)).toEqual([]);
    expect(growing.skipped).toBe(1);
    expect(growing.step(at(2_000), ids)).toEqual([]); // a's window is 100, b's still 0: not mutual
    expect(lobbiesOf(growing.step(at(2_500), ids))).toEqual([['a', 'b']]);
    expect(growing.skipped).toBe(1);
  });

  it('takes the lobbies it proposes until they are removed or released; an update queues the new revision', () => {
    const duel = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100 }] });
    const ticket = (lobbyId: string, mmr: number, revision = 1): Ticket => ({ lobbyId, ticket: revision, region: 'eu-west', queuedAt: at(0), players: [{ id: `${lobbyId}-p`, state: { mmr } }] });
    const queue = new MatchQueue(key, duel);
    queue.add(ticket('a', 1000));
    queue.add(ticket('b', 1050));
    expect(lobbiesOf(queue.step(at(1000), ids))).toEqual([['a', 'b']]);
    expect(queue.isTaken('a')).toBe(true);
    expect(queue.tickets()).toEqual([]);
    expect(queue.step(at(2000), ids)).toEqual([]); // taken: not proposed again
    queue.add(ticket('c', 1020));
    expect(queue.step(at(3000), ids)).toEqual([]);
    expect(queue.release('a')).toBe(true); // b's reservation failed: a goes back, b left the queue
    expect(queue.remove('b')).toBe(true);
    expect(queue.release('a')).toBe(false); // not taken any more
    expect(lobbiesOf(queue.step(at(4000), ids))).toEqual([['a', 'c']]);
    queue.update(ticket('a', 1000, 2)); // a new revision while taken: queued again
    expect(queue.isTaken('a')).toBe(false);
    expect(queue.tickets().map((t) => [t.lobbyId, t.ticket])).toEqual([['a', 2]]);
    expect(queue.size).toBe(2); // a and the taken c
    expect(queue.remove('zzz')).toBe(false);
  });
});
