// Lobby join throughput, standalone: LOBBIES lobbies of maxPlayers 100 are created by their hosts, then
// CONCURRENCY clients (keep-alive sockets, one request in flight each) join distinct players into lobbies
// spread across all of them (player n joins lobby n % LOBBIES) until JOINS joins or DURATION_S seconds,
// whichever comes first. Prints joins/s, join latency p50/p95/p99 and the count of non-200 answers.
// Needs the build: npm run build
// Usage: node bench/lobby-join.js   (BENCH_LOBBIES, BENCH_JOINS, BENCH_DURATION_S, BENCH_CONCURRENCY override;
//        BENCH_PROFILE_DIR=dir: CPU profile of the platform; BENCH_NODE_ARGS: more node flags for it, e.g. '-r ./patch.js')
'use strict';
const { startStandalone, percentile } = require('./lib/standalone');
const { keepAliveAgent, request, runPool, playerHeaders, setupLobbies, waitForReadModel } = require('./lib/lobby');

const LOBBIES = Number(process.env.BENCH_LOBBIES ?? 400);
const JOINS = Number(process.env.BENCH_JOINS ?? 6000);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP_JOINS = 200;
const TARGET_PER_S = 500;
const TARGET_P99_MS = 50;

async function main() {
  console.log(`# load average at start: ${require('node:os').loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  if (JOINS > LOBBIES * 99) throw new Error(`BENCH_JOINS ${JOINS} does not fit in ${LOBBIES} lobbies of 100`);
  const p = await startStandalone({ uploadBuild: false });
  const agent = keepAliveAgent(CONCURRENCY);
  try {
    const setupStart = Date.now();
    const lobbies = await setupLobbies(p.port, p.clientKey, { lobbies: LOBBIES, membersPerLobby: 1, maxPlayers: 100, prefix: 'j', concurrency: CONCURRENCY, agent });
    console.log(`# ${LOBBIES} lobbies (maxPlayers 100) created in ${((Date.now() - setupStart) / 1000).toFixed(1)} s`);

    const join = (player, n) => request(agent, p.port, 'POST', '/api/v3/lobbies/default/join', {
      headers: playerHeaders(p.clientKey, player), body: { lobbyId: lobbies[n % LOBBIES].id },
    });
    // Uncounted warm-up joins (one per lobby at most), same clients.
    await runPool(Math.min(WARMUP_JOINS, LOBBIES), CONCURRENCY, async (n) => {
      const r = await join(`w${n}`, n);
      if (r.status !== 200) throw new Error(`warm-up join: ${r.status} ${JSON.stringify(r.body)}`);
    });

    const latencies = [];
    const statuses = new Map();
    let errors = 0;
    const deadline = Date.now() + DURATION_S * 1000;
    const t0 = performance.now();
    const done = await runPool(JOINS, CONCURRENCY, async (n) => {
      try {
        const r = await join(`p${n}`, n);
        latencies.push(r.ms);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status !== 200 && (statuses.get(r.status) ?? 0) <= 3) console.error(`# join p${n}: ${r.status} ${JSON.stringify(r.body)}`);
      } catch (err) {
        errors++;
        if (errors <= 3) console.error(`# join p${n}: ${err.message}`);
      }
    }, () => Date.now() >= deadline);
    const seconds = (performance.now() - t0) / 1000;
    // The lobbies read model is written behind the requests: how far behind was it when the last join answered?
    const lagS = await waitForReadModel(agent, p.port, p.clientKey, LOBBIES + Math.min(WARMUP_JOINS, LOBBIES) + (statuses.get(200) ?? 0));

    latencies.sort((a, b) => a - b);
    const ok = statuses.get(200) ?? 0;
    const non200 = done - ok - errors;
    const perS = ok / seconds;
    const [p50, p95, p99] = [50, 95, 99].map((q) => percentile(latencies, q));
    console.log(`lobby_join.joins ${done}`);
    console.log(`lobby_join.seconds ${seconds.toFixed(2)}`);
    console.log(`lobby_join.joins_per_s ${perS.toFixed(0)}`);
    console.log(`lobby_join.p50_ms ${p50.toFixed(2)}`);
    console.log(`lobby_join.p95_ms ${p95.toFixed(2)}`);
    console.log(`lobby_join.p99_ms ${p99.toFixed(2)}`);
    console.log(`lobby_join.max_ms ${latencies[latencies.length - 1].toFixed(2)}`);
    console.log(`lobby_join.non200 ${non200}`);
    console.log(`lobby_join.read_model_lag_s ${lagS.toFixed(1)}`);
    console.log(`lobby_join.errors ${errors}`);
    console.log(`lobby_join.target.joins_per_s_ge_${TARGET_PER_S} ${perS >= TARGET_PER_S ? 'PASS' : 'MISS'}`);
    console.log(`lobby_join.target.p99_lt_${TARGET_P99_MS}ms ${p99 < TARGET_P99_MS ? 'PASS' : 'MISS'}`);
    console.log(`lobby_join.target.all_200 ${non200 === 0 && errors === 0 ? 'PASS' : 'MISS'}`);
    const other = [...statuses].filter(([s]) => s !== 200).map(([s, n]) => `${s}×${n}`).join(', ');
    console.log(`# ${done} joins by ${CONCURRENCY} clients into ${LOBBIES} lobbies in ${seconds.toFixed(1)} s: ${perS.toFixed(0)} joins/s, ` +
      `p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; non-200 ${non200}${other ? ` (${other})` : ''}, errors ${errors}; ` +
      `read model caught up ${lagS.toFixed(1)} s after the last join`);
  } finally {
    agent.destroy();
    await p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
