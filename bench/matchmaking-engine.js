// The matching step (libs/domain/src/matchmaking, pure) over one queue: 10,000 and 100,000 queued lobbies,
// 1v1 and 5v5 (5v5: 30 % parties of two), ratings spread over 0–3000, queued over the last 60 s, a
// difference rule of base 100 growing by 100 every 2 s. Prints, per case:
//   full_step_ms        formMatches over the whole queue from scratch (tickets read, sorted, matched);
//   rescan_step_ms      MatchQueue.step over the whole queue once its tickets are indexed (every ticket
//                       considered: the re-scan case), and index_ms the adds and index() before it;
//   tick_p50_ms/p99_ms  incremental ticks: after the first step (its matches removed), 200 ticks of
//                       +1 s, each adding 1 % of the size in new tickets, stepping and removing what
//                       matched (all three timed); queue_before_tick is the mean queue size at the tick;
//   tickets_per_s       tickets considered per second by the full step; matched_per_s lobbies matched
//                       per second by the re-scan step;
//   queue_bytes_per_ticket  heap (after gc) held per queued ticket: the tickets themselves plus the
//                       MatchQueue (entries, index, scratch) after its first step; index_bytes_per_ticket
//                       the MatchQueue's share alone.
// Then explain (GET …/me/matchmaking's pure part), per size, over a 1v1 queue whose lobbies do not match
// (difference rule of 0, every rating distinct, queued over the last 60 s, one step taken first):
//   explain_linear_p50_us/p99_us   explainTicket over every queued ticket (the scan), 200 lobbies
//                       (50 at 100,000);
//   explain_index_build_ms         MatchQueue.explain's first call (builds its index of the queue);
//   explain_p50_us/p99_us          MatchQueue.explain after that, 20,000 calls at random lobbies;
//   explain_kept_add_remove_us     an add plus a remove once the index is built (what keeping it costs a
//                       tick, per ticket).
// Needs the domain build (npm run build -w @spawnpoint/domain).
// Usage: node --expose-gc bench/matchmaking-engine.js   (BENCH_SIZES=10000,100000, BENCH_TICKS=200 override;
// BENCH_EXPLAIN_ONLY=1 runs the explain part alone)
'use strict';
const { explainTicket, formMatches, MatchQueue, resolveMode } = require(process.env.DOMAIN_DIST ?? '../libs/domain/dist');

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const TICKS = Number(process.env.BENCH_TICKS ?? 200);
const NOW = Date.parse('2026-11-24T10:01:00.000Z');
const rule = { type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: 2, expandBy: 100 };
const MODES = {
  '1v1': resolveMode('1v1', { teams: 2, playersPerTeam: 1, rules: [rule] }),
  '5v5': resolveMode('5v5', { teams: 2, playersPerTeam: 5, rules: [rule] }),
};
const KEY = { projectId: 'p', config: 'c' };

// A small deterministic generator, so both sides of an A/B see the same queue.
function rng(seed) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/** `size` tickets queued over the 60 s before `now` (or all at `now` with spread 0), ids from `first`. */
function tickets(r, size, party, now, spread, first = 0) {
  return Array.from({ length: size }, (_, k) => {
    const i = first + k;
    const players = Array.from({ length: party === 2 && r() < 0.3 ? 2 : 1 }, (_, p) => ({ id: `l${i}-p${p}`, state: { mmr: Math.round(r() * 3000) } }));
    return { lobbyId: `l${i}`, ticket: 1, region: 'eu-west', queuedAt: new Date(now - Math.floor(r() * spread)).toISOString(), players };
  });
}

const heapUsed = () => {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed;
};
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const ids = (lobbies) => `m-${lobbies[0].lobbyId}`;
const iso = (t) => new Date(t).toISOString();
const matchedIn = (proposals) => proposals.reduce((n, m) => n + m.lobbies.length, 0);

for (const [name, mode] of process.env.BENCH_EXPLAIN_ONLY ? [] : Object.entries(MODES)) {
  const party = name === '5v5' ? 2 : 1;
  for (const size of SIZES) {
    const key = `matchmaking_engine.${name}_${size}`;
    const q = tickets(rng(size + party), size, party, NOW, 60_000);

    // Full step from scratch (formMatches), median of 5.
    formMatches(KEY, mode, q.slice(0, 1000), iso(NOW), ids); // warm-up
    const runs = [];
    let matched = 0;
    for (let k = 0; k < 5; k++) {
      const t = process.hrtime.bigint();
      const out = formMatches(KEY, mode, q, iso(NOW), ids);
      runs.push(ms(t));
      matched = matchedIn(out);
    }
    const full = pct(runs, 50);

    // The same queue in a MatchQueue: indexed by its adds, then one step over all of it (median of 5).
    const rescans = [];
    let indexMs = 0;
    for (let k = 0; k < 5; k++) {
      const queue = new MatchQueue(KEY, mode);
      let t = process.hrtime.bigint();
      for (const ticket of q) queue.add(ticket);
      queue.index();
      indexMs = ms(t);
      t = process.hrtime.bigint();
      const out = queue.step(iso(NOW), ids);
      rescans.push(ms(t));
      if (matchedIn(out) !== matched) throw new Error(`MatchQueue matched ${matchedIn(out)}, formMatches ${matched}`);
    }
    const rescan = pct(rescans, 50);

    // Heap per queued ticket: fresh tickets, then the same in a queue after its first step.
    const before = heapUsed();
    let fresh = tickets(rng(size + party), size, party, NOW, 60_000);
    const afterTickets = heapUsed();
    let queue = new MatchQueue(KEY, mode);
    for (const ticket of fresh) queue.add(ticket);
    let first = queue.step(iso(NOW), ids);
    const taken = first.flatMap((m) => m.lobbies.map((l) => l.lobbyId));
    first = null;
    fresh = null;
    const afterQueue = heapUsed();
    const perTicket = (afterQueue - before) / size;
    const indexPerTicket = (afterQueue - afterTickets) / size;

    // Incremental ticks.
    for (const id of taken) queue.remove(id);
    heapUsed(); // the setup's garbage is not the ticks'
    const r = rng(size * 7 + party);
    const add = Math.max(1, Math.round(size / 100));
    const ticks = [];
    let sizes = 0;
    let next = size;
    let tickMatched = 0;
    for (let k = 1; k <= TICKS; k++) {
      const now = NOW + k * 1000;
      const batch = tickets(r, add, party, now, 1000, next);
      next += add;
      sizes += queue.size + add;
      const t = process.hrtime.bigint();
      for (const ticket of batch) queue.add(ticket);
      const out = queue.step(iso(now), ids);
      for (const m of out) for (const l of m.lobbies) queue.remove(l.lobbyId);
      ticks.push(ms(t));
      tickMatched += matchedIn(out);
    }
    queue = null;

    console.log(`${key}.full_step_ms ${full.toFixed(1)}`);
    console.log(`${key}.rescan_step_ms ${rescan.toFixed(1)}`);
    console.log(`${key}.index_ms ${indexMs.toFixed(1)}`);
    console.log(`${key}.lobbies_matched ${matched}`);
    console.log(`${key}.tickets_per_s ${Math.round(size / (full / 1000))}`);
    console.log(`${key}.matched_per_s ${Math.round(matched / (rescan / 1000))}`);
    console.log(`${key}.tick_p50_ms ${pct(ticks, 50).toFixed(2)}`);
    console.log(`${key}.tick_p99_ms ${pct(ticks, 99).toFixed(2)}`);
    console.log(`${key}.queue_before_tick ${Math.round(sizes / TICKS)}`);
    console.log(`${key}.tick_lobbies_matched_per_tick ${Math.round(tickMatched / TICKS)}`);
    if (global.gc) {
      console.log(`${key}.queue_bytes_per_ticket ${Math.round(perTicket)}`);
      console.log(`${key}.index_bytes_per_ticket ${Math.round(indexPerTicket)}`);
    }
    const target = size >= 100_000 ? 50 : 10;
    console.log(`${key}.target.tick_p99_lt_${target}ms ${pct(ticks, 99) < target ? 'PASS' : 'MISS'}`);
    if (size === 100_000) {
      console.log(`${key}.target.full_step_lt_150ms ${full < 150 ? 'PASS' : 'MISS'}`);
      console.log(`${key}.target.rescan_step_lt_150ms ${rescan < 150 ? 'PASS' : 'MISS'}`);
    }
    console.log(`${key}.target.matched_per_s_ge_100k ${matched / (rescan / 1000) >= 100_000 ? 'PASS' : 'MISS'}`);
    if (global.gc) console.log(`${key}.target.bytes_per_ticket_lt_600 ${perTicket < 600 ? 'PASS' : 'MISS'}`);
  }
}

// Explain: a 1v1 queue that does not match (a window of 0, distinct ratings).
const exact = resolveMode('1v1-exact', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 0 }] });
const us = (t) => Number(process.hrtime.bigint() - t) / 1e3;
for (const size of SIZES) {
  const key = `matchmaking_engine.explain_1v1_${size}`;
  const r = rng(size * 13 + 1);
  // Distinct ratings: i × 7919 mod size (7919 is prime and divides no size here).
  const q = Array.from({ length: size }, (_, i) => ({
    lobbyId: `x${i}`, ticket: 1, region: 'eu-west', queuedAt: iso(NOW - Math.floor(r() * 60_000)),
    players: [{ id: `x${i}-p`, state: { mmr: (i * 7919) % size } }],
  }));
  const queue = new MatchQueue(KEY, exact);
  for (const ticket of q) queue.add(ticket);
  if (queue.step(iso(NOW), ids).length !== 0) throw new Error('the explain queue matched');
  const now = iso(NOW + 500);
  const pick = () => q[Math.floor(r() * size)];

  explainTicket(exact, q[0], q, now); // warm-up
  const linear = [];
  for (let k = 0; k < (size >= 100_000 ? 50 : 200); k++) {
    const t = pick();
    const t0 = process.hrtime.bigint();
    explainTicket(exact, t, q, now);
    linear.push(us(t0));
  }

  let t0 = process.hrtime.bigint();
  const first = queue.explain(q[0].lobbyId, now);
  const build = us(t0) / 1000;
  const expected = explainTicket(exact, q[0], q, now);
  if (JSON.stringify(first) !== JSON.stringify(expected)) throw new Error(`explain differs: ${JSON.stringify(first)} vs ${JSON.stringify(expected)}`);
  for (let k = 0; k < 2000; k++) queue.explain(pick().lobbyId, now); // warm-up
  const indexed = [];
  for (let k = 0; k < 20_000; k++) {
    const id = pick().lobbyId;
    t0 = process.hrtime.bigint();
    queue.explain(id, now);
    indexed.push(us(t0));
  }

  // Keeping the index: an add and a remove (new lobbies, outside the distinct ratings so nothing matches).
  const kept = [];
  for (let k = 0; k < 2000; k++) {
    const ticket = { lobbyId: `y${k}`, ticket: 1, region: 'eu-west', queuedAt: now, players: [{ id: `y${k}-p`, state: { mmr: size + 0.5 + k } }] };
    t0 = process.hrtime.bigint();
    queue.add(ticket);
    queue.remove(ticket.lobbyId);
    kept.push(us(t0));
  }

  console.log(`${key}.explain_linear_p50_us ${pct(linear, 50).toFixed(0)}`);
  console.log(`${key}.explain_linear_p99_us ${pct(linear, 99).toFixed(0)}`);
  console.log(`${key}.explain_index_build_ms ${build.toFixed(1)}`);
  console.log(`${key}.explain_p50_us ${pct(indexed, 50).toFixed(1)}`);
  console.log(`${key}.explain_p99_us ${pct(indexed, 99).toFixed(1)}`);
  console.log(`${key}.explain_kept_add_remove_us ${pct(kept, 50).toFixed(1)}`);
  console.log(`${key}.target.explain_p99_lt_1ms ${pct(indexed, 99) < 1000 ? 'PASS' : 'MISS'}`);
}
