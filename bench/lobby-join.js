// Lobby joins, standalone: LOBBIES lobbies of maxPlayers 100 are created by their hosts; CONCURRENCY clients
// (keep-alive sockets, one request in flight each) then join distinct players into lobbies spread across all
// of them (player n joins lobby n % LOBBIES), in three phases:
//  1. warm-up: WARMUP_JOINS joins, not counted (V8 optimises the join path and PostgreSQL fills its caches
//     during the first ~2 s after the setup burst; 200 warm-up joins left that in the measured figures);
//  2. paced: RATE joins/s for PACED_S seconds. Join i is due at start + i/RATE; the first free client sends it
//     (at once when it is overdue) and its latency counts from when it was due, so time spent waiting for a
//     free client is included (no coordinated omission). The latency target is read here: p99 at RATE;
//  3. saturation: the clients send back to back (closed loop) until JOINS joins or DURATION_S seconds. This
//     is the throughput figure; its latency is concurrency ÷ throughput plus queueing, printed as well.
// Prints joins/s, p50/p95/p99/max of each phase, non-200 answers, and how long the read model lagged.
// Needs the build: npm run build
// Usage: node bench/lobby-join.js   (BENCH_LOBBIES, BENCH_WARMUP_JOINS, BENCH_RATE, BENCH_PACED_S, BENCH_JOINS,
//        BENCH_DURATION_S, BENCH_CONCURRENCY override; BENCH_PROFILE_DIR=dir: CPU profile of the platform;
//        BENCH_NODE_ARGS: more node flags for it, e.g. '-r ./patch.js')
'use strict';
const { startStandalone, percentile, sleep } = require('./lib/standalone');
const { keepAliveAgent, request, runPool, playerHeaders, setupLobbies, waitForReadModel } = require('./lib/lobby');

const LOBBIES = Number(process.env.BENCH_LOBBIES ?? 400);
const WARMUP_JOINS = Number(process.env.BENCH_WARMUP_JOINS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const PACED_S = Number(process.env.BENCH_PACED_S ?? 10);
const JOINS = Number(process.env.BENCH_JOINS ?? 6000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const TARGET_PER_S = 500;
const TARGET_P99_MS = 50;

function summary(latencies, seconds, statuses, errors) {
  latencies.sort((a, b) => a - b);
  const ok = statuses.get(200) ?? 0;
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  const [p50, p95, p99] = [50, 95, 99].map((q) => percentile(latencies, q));
  return { ok, non200: total - ok, errors, perS: ok / seconds, seconds, p50, p95, p99, max: latencies[latencies.length - 1] ?? NaN };
}

/** One phase's bookkeeping: latency per answer, answers by status, transport errors (first three printed). */
function recorder(name) {
  const latencies = [];
  const statuses = new Map();
  let errors = 0;
  return {
    latencies, statuses,
    get errors() { return errors; },
    record(player, r, ms) {
      latencies.push(ms);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status !== 200 && (statuses.get(r.status) ?? 0) <= 3) console.error(`# ${name} join ${player}: ${r.status} ${JSON.stringify(r.body)}`);
    },
    fail(player, err) {
      errors++;
      if (errors <= 3) console.error(`# ${name} join ${player}: ${err.message}`);
    },
  };
}

function print(prefix, s) {
  console.log(`${prefix}.joins ${s.ok + s.non200 + s.errors}`);
  console.log(`${prefix}.joins_per_s ${s.perS.toFixed(0)}`);
  console.log(`${prefix}.p50_ms ${s.p50.toFixed(2)}`);
  console.log(`${prefix}.p95_ms ${s.p95.toFixed(2)}`);
  console.log(`${prefix}.p99_ms ${s.p99.toFixed(2)}`);
  console.log(`${prefix}.max_ms ${s.max.toFixed(2)}`);
  console.log(`${prefix}.non200 ${s.non200}`);
  console.log(`${prefix}.errors ${s.errors}`);
}

async function main() {
  console.log(`# load average at start: ${require('node:os').loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const paced = Math.round(RATE * PACED_S);
  if (WARMUP_JOINS + paced + JOINS > LOBBIES * 99) throw new Error(`${WARMUP_JOINS + paced + JOINS} joins do not fit in ${LOBBIES} lobbies of 100`);
  const p = await startStandalone({ uploadBuild: false });
  const agent = keepAliveAgent(CONCURRENCY);
  try {
    const setupStart = Date.now();
    const lobbies = await setupLobbies(p.port, p.clientKey, { lobbies: LOBBIES, membersPerLobby: 1, maxPlayers: 100, prefix: 'j', concurrency: CONCURRENCY, agent });
    console.log(`# ${LOBBIES} lobbies (maxPlayers 100) created in ${((Date.now() - setupStart) / 1000).toFixed(1)} s`);

    const join = (player, n) => request(agent, p.port, 'POST', '/api/v3/lobbies/default/join', {
      headers: playerHeaders(p.clientKey, player), body: { lobbyId: lobbies[n % LOBBIES].id },
    });

    // 1. Warm-up, not counted.
    await runPool(WARMUP_JOINS, CONCURRENCY, async (n) => {
      const r = await join(`w${n}`, n);
      if (r.status !== 200) throw new Error(`warm-up join: ${r.status} ${JSON.stringify(r.body)}`);
    });

    // 2. Paced: join i due at start + i / RATE; latency from when it was due.
    const pacedRec = recorder('paced');
    const pacedStart = performance.now();
    console.log(`# paced from monotonic ${process.hrtime.bigint() / 1000n} us`);
    await runPool(paced, CONCURRENCY, async (i) => {
      const due = pacedStart + (i * 1000) / RATE;
      const early = due - performance.now();
      if (early > 0) await sleep(early);
      try {
        const r = await join(`r${i}`, i);
        pacedRec.record(`r${i}`, r, performance.now() - due);
      } catch (err) {
        pacedRec.fail(`r${i}`, err);
      }
    });
    console.log(`# paced until monotonic ${process.hrtime.bigint() / 1000n} us`);
    const pacedSummary = summary(pacedRec.latencies, (performance.now() - pacedStart) / 1000, pacedRec.statuses, pacedRec.errors);

    // 3. Saturation: back to back.
    const satRec = recorder('saturation');
    const deadline = Date.now() + DURATION_S * 1000;
    const t0 = performance.now();
    // CLOCK_MONOTONIC µs, the clock of --cpu-prof sample times: to cut this phase out of a platform profile.
    console.log(`# saturation from monotonic ${process.hrtime.bigint() / 1000n} us`);
    await runPool(JOINS, CONCURRENCY, async (n) => {
      try {
        const r = await join(`p${n}`, n);
        satRec.record(`p${n}`, r, r.ms);
      } catch (err) {
        satRec.fail(`p${n}`, err);
      }
    }, () => Date.now() >= deadline);
    const sat = summary(satRec.latencies, (performance.now() - t0) / 1000, satRec.statuses, satRec.errors);
    console.log(`# saturation until monotonic ${process.hrtime.bigint() / 1000n} us`);

    // The lobbies read model is written behind the requests: how far behind was it when the last join answered?
    const lagS = await waitForReadModel(agent, p.port, p.clientKey, LOBBIES + WARMUP_JOINS + pacedSummary.ok + sat.ok);

    print(`lobby_join.paced_${RATE}`, pacedSummary);
    print('lobby_join.saturation', sat);
    console.log(`lobby_join.read_model_lag_s ${lagS.toFixed(1)}`);
    const allOk = [pacedSummary, sat].every((s) => s.non200 === 0 && s.errors === 0);
    console.log(`lobby_join.target.joins_per_s_ge_${TARGET_PER_S} ${sat.perS >= TARGET_PER_S ? 'PASS' : 'MISS'}`);
    console.log(`lobby_join.target.p99_lt_${TARGET_P99_MS}ms_at_${RATE}_per_s ${pacedSummary.p99 < TARGET_P99_MS && pacedSummary.perS >= RATE * 0.95 ? 'PASS' : 'MISS'}`);
    console.log(`lobby_join.target.all_200 ${allOk ? 'PASS' : 'MISS'}`);
    const line = (s) => `p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms; non-200 ${s.non200}, errors ${s.errors}`;
    console.log(`# ${CONCURRENCY} clients, ${LOBBIES} lobbies, after ${WARMUP_JOINS} warm-up joins:`);
    console.log(`#   paced at ${RATE}/s: ${pacedSummary.ok + pacedSummary.non200} joins in ${pacedSummary.seconds.toFixed(1)} s (${pacedSummary.perS.toFixed(0)}/s), ${line(pacedSummary)}`);
    console.log(`#   saturation: ${sat.ok + sat.non200} joins in ${sat.seconds.toFixed(1)} s, ${sat.perS.toFixed(0)} joins/s, ${line(sat)}`);
    console.log(`#   read model caught up ${lagS.toFixed(1)} s after the last join`);
  } finally {
    agent.destroy();
    await p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
