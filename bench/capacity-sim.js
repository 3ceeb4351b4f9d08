// A synthetic day of demand through the pool demand policy (libs/domain pool-demand.ts, the same code the
// servers service runs), in simulated time, against static pools. Demand: match requests arrive (Poisson)
// on a diurnal curve with a quiet night (none at all from 02:00 to 06:00) and two spikes of 10× for 15
// minutes; most requests wait in the matchmaking queue while their match forms (4-12 s), then claim a pool
// server, or start cold when none is ready; BENCH_UNQUEUED_PCT (30) % claim at once with no warning (a host
// starting a lobby's game, a server started by the studio's own backend): only the claim rate sees those. A pool server takes BENCH_POOL_START_S (5) s to be ready, a
// cold start BENCH_COLD_START_S (30) s. Each simulated second the pool compares its servers (ready plus
// starting) with the target and starts or stops the difference (the refill, as the servers service does it).
// Idle server-minutes: pool servers not in a match (ready or starting), summed over the day.
// Prints, for the demand policy and for the smallest static min_ready with no more cold fallbacks, the
// cold-fallback share and the idle server-minutes, and how long the pool took to have a ready server again
// after the night (from the first request).
'use strict';
const path = require('node:path');

const root = process.env.BENCH_ROOT ?? path.join(__dirname, '..');
const { poolTarget, observe, rateAt, EMPTY_METER, NO_DEMAND_SEEN } = require(path.join(root, 'libs', 'domain', 'dist'));

const POOL_START_S = Number(process.env.BENCH_POOL_START_S ?? 5);
const COLD_START_S = Number(process.env.BENCH_COLD_START_S ?? 30);
const SEED = Number(process.env.BENCH_SEED ?? 2026);
const PEAK_PER_S = Number(process.env.BENCH_PEAK_PER_S ?? 2);
const DAY_S = 86_400;
const DAY0 = Date.parse('2026-11-29T00:00:00Z');
const HALF_LIFE_S = 10;
const UNQUEUED = Number(process.env.BENCH_UNQUEUED_PCT ?? 30) / 100;
const MAX = 1_000;

/** mulberry32: the same day on every run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Match requests per second at second `s` of the day. */
function rate(s) {
  const hour = s / 3600;
  if (hour >= 2 && hour < 6) return 0;
  // Diurnal: lowest around 04:00, highest around 20:00.
  const diurnal = 0.55 - 0.45 * Math.cos(((hour - 20) / 24) * 2 * Math.PI);
  const base = PEAK_PER_S * Math.max(0, diurnal - 0.1) / 0.9;
  const spike = (hour >= 13 && hour < 13.25) || (hour >= 20.5 && hour < 20.75) ? 10 : 1;
  return base * spike;
}

function poisson(random, lambda) {
  if (lambda <= 0) return 0;
  if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gaussian(random)));
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= random();
  } while (p > l);
  return k - 1;
}

function gaussian(random) {
  return Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
}

/** The day's requests: when each enters the queue and when its match claims (the same for every policy). */
function day() {
  const random = prng(SEED);
  const requests = [];
  for (let s = 0; s < DAY_S; s++) {
    const n = poisson(random, rate(s));
    for (let i = 0; i < n; i++) {
      const unqueued = random() < UNQUEUED;
      requests.push({ queuedAt: unqueued ? null : s, claimAt: unqueued ? s : s + 4 + Math.floor(random() * 9) });
    }
  }
  return requests;
}

/** Runs the day with `target(signals, s)` giving the ready count to keep. */
function simulate(requests, target) {
  const queuedBy = new Map();
  const claimsBy = new Map();
  const unqueuedBy = new Map();
  for (const r of requests) {
    if (r.queuedAt === null) unqueuedBy.set(r.claimAt, (unqueuedBy.get(r.claimAt) ?? 0) + 1);
    else queuedBy.set(r.queuedAt, (queuedBy.get(r.queuedAt) ?? 0) + 1);
    claimsBy.set(r.claimAt, (claimsBy.get(r.claimAt) ?? 0) + 1);
  }
  let ready = 0;
  const starting = []; // ready-at seconds, in order
  let queued = 0;
  let lastQueued = 0;
  let trend = 0;
  let meter = EMPTY_METER;
  let claims = 0;
  let cold = 0;
  let idleServerSeconds = 0;
  let quietUntilFirst = null;
  let backAfter = null;
  const nightEnd = 6 * 3600;
  for (let s = 0; s < DAY_S + 30; s++) {
    while (starting.length > 0 && starting[0] <= s) {
      starting.shift();
      ready++;
    }
    queued += queuedBy.get(s) ?? 0;
    const due = claimsBy.get(s) ?? 0;
    queued -= due - (unqueuedBy.get(s) ?? 0);
    for (let i = 0; i < due; i++) {
      claims++;
      if (ready > 0) ready--;
      else cold++;
    }
    if (due > 0) meter = observe(meter, DAY0 + s * 1000, due, HALF_LIFE_S);
    // The queue's trend, smoothed over about 10 s.
    trend = trend * 0.9 + (queued - lastQueued) * 0.1;
    lastQueued = queued;
    if (s >= nightEnd && quietUntilFirst === null && (queuedBy.get(s) ?? 0) + (unqueuedBy.get(s) ?? 0) > 0) quietUntilFirst = s;
    if (quietUntilFirst !== null && backAfter === null && ready > 0) backAfter = s - quietUntilFirst;
    const signals = { at: DAY0 + s * 1000, queuedMatches: queued, queueTrendPerSecond: trend, lobbiesStarting: 0, claimRatePerSecond: rateAt(meter, DAY0 + s * 1000, HALF_LIFE_S) };
    const want = target(signals, s);
    const have = ready + starting.length;
    if (want > have) for (let i = 0; i < want - have; i++) starting.push(s + POOL_START_S);
    else if (want < have) {
      // Scale down: starting ones first (not yet paid for long), then ready ones.
      let drop = have - want;
      while (drop > 0 && starting.length > 0) { starting.pop(); drop--; }
      ready -= Math.min(ready, drop);
    }
    idleServerSeconds += ready + starting.length;
  }
  return { claims, cold, share: claims ? cold / claims : 0, idleMinutes: idleServerSeconds / 60, backAfter };
}

function main() {
  const requests = day();
  const region = { min_ready: 0, max: MAX, demand: { warmup_seconds: POOL_START_S, headroom: 0.5, scale_to_zero_after_seconds: 600 } };
  let state = NO_DEMAND_SEEN;
  const demand = simulate(requests, (signals) => {
    const t = poolTarget(region, signals, state);
    state = t.state;
    return t.desired;
  });
  // The best static pool with no more cold fallbacks than the demand policy (at least one server).
  let staticN = 1;
  let fixed = simulate(requests, () => staticN);
  while (fixed.share > demand.share && staticN < MAX) {
    staticN = staticN < 16 ? staticN + 1 : Math.ceil(staticN * 1.1);
    fixed = simulate(requests, () => staticN);
  }
  // Step back down to the smallest that still matches (the growth above overshoots).
  while (staticN > 1) {
    const smaller = simulate(requests, () => staticN - 1);
    if (smaller.share > demand.share) break;
    staticN--;
    fixed = smaller;
  }
  const saved = 1 - demand.idleMinutes / fixed.idleMinutes;
  console.log(`capacity_sim.requests ${requests.length}`);
  console.log(`capacity_sim.unqueued_pct ${(UNQUEUED * 100).toFixed(0)}`);
  console.log(`capacity_sim.demand.cold_fallback_pct ${(demand.share * 100).toFixed(2)}`);
  console.log(`capacity_sim.demand.idle_server_minutes ${demand.idleMinutes.toFixed(0)}`);
  console.log(`capacity_sim.demand.back_from_zero_s ${demand.backAfter ?? -1}`);
  console.log(`capacity_sim.static.min_ready ${staticN}`);
  console.log(`capacity_sim.static.cold_fallback_pct ${(fixed.share * 100).toFixed(2)}`);
  console.log(`capacity_sim.static.idle_server_minutes ${fixed.idleMinutes.toFixed(0)}`);
  console.log(`capacity_sim.idle_saved_pct ${(saved * 100).toFixed(1)}`);
  console.log(`capacity_sim.target.cold_fallback_le_1pct ${demand.share <= 0.01 ? 'PASS' : 'MISS'}`);
  console.log(`capacity_sim.target.idle_saved_ge_40pct ${saved >= 0.4 ? 'PASS' : 'MISS'}`);
  console.log(`capacity_sim.target.back_from_zero_within_cold_start ${demand.backAfter !== null && demand.backAfter <= COLD_START_S ? 'PASS' : 'MISS'}`);
  console.log(`# ${requests.length} requests in a day; demand policy: ${(demand.share * 100).toFixed(2)} % cold, ${demand.idleMinutes.toFixed(0)} idle server-minutes, `
    + `ready again ${demand.backAfter} s after the night's first request; best static pool of the same cold share: min_ready ${staticN}, `
    + `${(fixed.share * 100).toFixed(2)} % cold, ${fixed.idleMinutes.toFixed(0)} idle server-minutes (${(saved * 100).toFixed(1)} % saved)`);
}

main();
