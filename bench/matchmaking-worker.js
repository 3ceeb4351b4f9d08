// The queue worker (apps/matchmaking: QueueBookProxy, queue-book.worker.ts): what one step over a large
// queue costs the main thread's event loop, the step run on it (QueueBook.step, as before the worker) vs
// through the worker. The queue: BENCH_SIZE (100,000) solo lobbies in a 1v1 mode, ratings over 0–3000,
// queued over the last 60 s, a difference rule of base 100 growing by 100 every 2 s (matchmaking-engine.js's
// re-scan case: every ticket considered, most matched). Each of BENCH_ROUNDS (5) rounds loads a fresh
// book, then samples the main loop's delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution) from 50 ms
// before the step to 50 ms after its answer. Prints, per side:
//   step_ms             the step's wall time as the caller sees it (median; through the worker: the round
//                       trip, proposals included);
//   loop_delay_p99_ms / loop_delay_max_ms   the main loop's delay in each round's window (its p99 and its
//                       largest sample, the worst round's), i.e. how long a request arriving then waited;
//   worker.load_ms      loading the 100,000 tickets into the worker (loadFrom: a start or a new worker's
//                       load, sent in chunks), until it answers; load_loop_delay_max_ms the main loop's
//                       largest delay meanwhile.
// Needs the build (npm run build).
//   request_wait_p50_ms/p99_ms  what a request arriving at a random moment of those windows waited for the
//                       loop (time-weighted: see sampled()).
// Then explain_10000: 2,000 explains one after another over a 10,000-lobby queue that does not match,
// MatchQueue.explain on the main thread vs QueueBookProxy.explain (the round trip to the worker), µs.
// Usage: node --expose-gc bench/matchmaking-worker.js   (BENCH_SIZE, BENCH_ROUNDS override; with
// --expose-gc a full collection runs before each window, so one side's garbage is not the other's)
'use strict';
const { createHistogram, monitorEventLoopDelay } = require('node:perf_hooks');
const { resolveMode } = require('../libs/domain/dist');
const { QueueBook } = require('../apps/matchmaking/dist/queue-book');
const { QueueBookProxy } = require('../apps/matchmaking/dist/queue-book-proxy');
const { matchIdOf } = require('../apps/matchmaking/dist/match-id');

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const NOW = Date.parse('2026-11-24T10:01:00.000Z');
const mode = resolveMode('1v1', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: 2, expandBy: 100 }] });
const QUEUE = { projectId: 'p', config: 'c', mode: '1v1' };

function rng(seed) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}
const rows = (() => {
  const r = rng(SIZE);
  return Array.from({ length: SIZE }, (_, i) => [`l${i}`, {
    ...QUEUE, region: 'eu-west', ticket: 1, queuedAt: new Date(NOW - Math.floor(r() * 60_000)).toISOString(),
    players: [{ id: `l${i}-p`, state: { mmr: Math.round(r() * 3000) } }],
  }]);
})();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The loop's delay over `work`: monitorEventLoopDelay (a histogram of its own each time: one enabled again
 * would count the gap since), and what a request arriving at a random moment would wait for the loop
 * (a 1 ms timer's gaps, each gap g counted as the waits g, g − 1, …, 1 ms of the requests arriving in it):
 * the loop's p99 sample hides a single long stall among many 1 ms ones, the request's wait does not.
 */
async function sampled(work, windows, waits) {
  global.gc?.(); // the previous round's garbage is not this window's
  const h = monitorEventLoopDelay({ resolution: 1 });
  let last = process.hrtime.bigint();
  let timer = null;
  const probe = () => {
    const now = process.hrtime.bigint();
    for (let w = Number(now - last) / 1e6; w > 0; w -= 1) waits.record(Math.max(1, Math.round(w * 1000))); // µs
    last = now;
    timer = setTimeout(probe, 1);
  };
  h.enable();
  timer = setTimeout(probe, 1);
  try {
    return await work();
  } finally {
    clearTimeout(timer);
    h.disable();
    windows.push({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 });
  }
}

/** One round: `step` timed, the loop's delay sampled from 50 ms before it to 50 ms after its answer. */
async function round(step, windows, times, waits) {
  return sampled(async () => {
    await sleep(50);
    const t = process.hrtime.bigint();
    const proposals = await step();
    times.push(ms(t));
    await sleep(50);
    return proposals.length;
  }, windows, waits);
}

const worst = (windows, k) => Math.max(...windows.map((w) => w[k])).toFixed(1);

function report(side, { delays, times, matched, waits }) {
  console.log(`matchmaking_worker.${side}.step_ms ${median(times).toFixed(1)}`);
  console.log(`matchmaking_worker.${side}.proposals ${matched}`);
  console.log(`matchmaking_worker.${side}.loop_delay_p99_ms ${worst(delays, 'p99')}`);
  console.log(`matchmaking_worker.${side}.loop_delay_max_ms ${worst(delays, 'max')}`);
  console.log(`matchmaking_worker.${side}.request_wait_p50_ms ${(waits.percentile(50) / 1000).toFixed(1)}`);
  console.log(`matchmaking_worker.${side}.request_wait_p99_ms ${(waits.percentile(99) / 1000).toFixed(1)}`);
}

async function main() {
  const now = new Date(NOW).toISOString();
  console.log(`matchmaking_worker.queue ${SIZE}`);

  // On the main thread, as the matcher did before the worker.
  const direct = { delays: [], times: [], matched: 0, waits: createHistogram() };
  for (let k = 0; k < ROUNDS; k++) {
    const book = new QueueBook();
    for (const [id, q] of rows) book.put(id, q);
    const queue = book.queue(QUEUE);
    direct.matched = await round(async () => book.step(queue, mode, now, matchIdOf), direct.delays, direct.times, direct.waits);
  }
  report('direct', direct);

  // Through the worker (one worker; each round clears and loads it, as a start does).
  const proxy = new QueueBookProxy();
  const via = { delays: [], times: [], matched: 0, waits: createHistogram() };
  const loadDelays = [];
  const loads = [];
  try {
    for (let k = 0; k < ROUNDS; k++) {
      proxy.clear();
      await sampled(async () => {
        const t = process.hrtime.bigint();
        await proxy.loadFrom(async () => rows);
        if ((await proxy.size()) !== SIZE) throw new Error('the worker did not load the queue');
        loads.push(ms(t));
      }, loadDelays, createHistogram());
      via.matched = await round(async () => {
        const proposals = [];
        for await (const p of proxy.step(QUEUE, mode, now)) proposals.push(p);
        return proposals;
      }, via.delays, via.times, via.waits);
      if (via.matched !== direct.matched) throw new Error(`the worker proposed ${via.matched}, the book ${direct.matched}`);
    }
  } finally {
    await proxy.close();
  }
  report('worker', via);
  console.log(`matchmaking_worker.worker.load_ms ${median(loads).toFixed(1)}`);
  console.log(`matchmaking_worker.worker.load_loop_delay_max_ms ${worst(loadDelays, 'max')}`);

  // Explain's cost through the worker: 2,000 explains one after another over a queue of 10,000 that does
  // not match (the index built by a step first), answered on the main thread vs through the worker.
  const exact = resolveMode('exact', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 0 }] });
  const still = rows.slice(0, 10_000).map(([id, q], i) => [id, { ...q, players: [{ id: `${id}-p`, state: { mmr: (i * 7919) % 10_000 } }] }]);
  const book = new QueueBook();
  for (const [id, q] of still) book.put(id, q);
  book.step(book.queue(QUEUE), exact, now, matchIdOf);
  const later = new Date(NOW + 500).toISOString();
  const explains = { direct: [], worker: [] };
  const proxy2 = new QueueBookProxy();
  try {
    await proxy2.loadFrom(async () => still);
    for await (const _ of proxy2.step(QUEUE, exact, now)) throw new Error('the explain queue matched');
    for (let k = 0; k < 2000; k++) {
      const id = still[(k * 7919) % still.length][0];
      let t = process.hrtime.bigint();
      const at = book.ticketOf(id);
      at.queue.engine.index.explain(id, later);
      explains.direct.push(ms(t) * 1000);
      t = process.hrtime.bigint();
      await proxy2.explain(id, exact, later);
      explains.worker.push(ms(t) * 1000);
    }
  } finally {
    await proxy2.close();
  }
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length * p) / 100)].toFixed(0);
  for (const side of ['direct', 'worker']) console.log(`matchmaking_worker.explain_10000.${side}_us p50 ${pct(explains[side], 50)} p99 ${pct(explains[side], 99)}`);

  const ratio = via.waits.percentile(99) / direct.waits.percentile(99);
  console.log(`matchmaking_worker.target.request_wait_p99_lt_10pct_of_direct ${ratio < 0.1 ? 'PASS' : 'MISS'}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
