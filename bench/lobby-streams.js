// Lobby event streams, standalone: STREAMS concurrent server-sent event streams on one gateway process,
// then lobby updates flowing through them.
// 1. LOBBIES lobbies × MEMBERS players (hosts create, members join), keep-alive HTTP from this process.
// 2. Memory of the platform process (VmRSS from /proc, and heap after a full GC via the preloaded
//    bench/lib/memory-probe.js) before and after every member opens GET /v3/lobbies/default/me/events
//    and has its `connected` event. The streams are raw `net` sockets spread over WORKERS forked
//    processes (bench/lib/sse-worker.js). Prints bytes per stream = (after − before) / streams.
// 3. RATE lobby updates/s for DRIVE_S seconds: PATCH /v3/lobbies/default/me by members, round-robin over
//    the lobbies, each putting `sentAt: Date.now()` into the player's state. Every member stream that
//    receives the resulting `lobby_updated` records receive time − sentAt. Prints delivery p50/p95/p99,
//    deliveries (expected: successful PATCHes × MEMBERS) and the PATCH latency.
// Needs the build: npm run build
// Usage: node bench/lobby-streams.js   (BENCH_LOBBIES, BENCH_MEMBERS, BENCH_RATE, BENCH_DRIVE_S, BENCH_STREAM_WORKERS override;
//        BENCH_PROFILE_DIR=dir writes a CPU profile of the platform, the drive's monotonic window is printed;
//        BENCH_NODE_ARGS: more node flags for the platform, e.g. '-r ./patch.js' for an experiment;
//        BENCH_HEAP_SNAPSHOT_DIR=dir: a heap snapshot of the platform at each memory reading)
'use strict';
const { execFileSync, fork } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { startStandalone, percentile, sleep } = require('./lib/standalone');
const { keepAliveAgent, request, playerHeaders, setupLobbies, waitForReadModel } = require('./lib/lobby');

const LOBBIES = Number(process.env.BENCH_LOBBIES ?? 1000);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 10);
const STREAMS = LOBBIES * MEMBERS;
const RATE = Number(process.env.BENCH_RATE ?? 500);
const DRIVE_S = Number(process.env.BENCH_DRIVE_S ?? 10);
const WORKERS = Number(process.env.BENCH_STREAM_WORKERS ?? 2);
const OPEN_CONCURRENCY = 50; // per worker
const PATCH_SOCKETS = 64;
const MAX_IN_FLIGHT = 1000; // PATCHes beyond this are skipped (counted), so a stalled platform cannot snowball
const TARGET_BYTES_PER_STREAM = 20 * 1024;
const TARGET_P99_MS = 100;

const kb = (bytes) => (bytes / 1024).toFixed(1);

function vmRssBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) * 1024;
}

/** Full GC in the platform (SIGWINCH → memory-probe.js), then its memoryUsage() and VmRSS. */
async function memory(p) {
  const seen = (p.output().match(/BENCH_MEMORY /g) ?? []).length;
  process.kill(p.pid, 'SIGWINCH');
  for (let i = 0; i < 200; i++) {
    const lines = p.output().split('\n').filter((l) => l.startsWith('BENCH_MEMORY '));
    if (lines.length > seen) {
      // V8 gives freed pages back a moment after the GC: read VmRSS once it has settled.
      await sleep(1000);
      return { ...JSON.parse(lines[lines.length - 1].slice(13)), vmRss: vmRssBytes(p.pid) };
    }
    await sleep(50);
  }
  throw new Error('memory probe did not answer');
}

function startWorker() {
  const w = fork(path.join(__dirname, 'lib', 'sse-worker.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiters = new Map();
  w.on('message', (m) => {
    if (m.type === 'error') {
      w.errors = (w.errors ?? 0) + 1;
      if (w.errors <= 3) console.error(`# stream for ${m.player}: ${m.message}`);
      return;
    }
    if (m.type === 'progress') { w.progress = m; return; }
    const resolve = waiters.get(m.type);
    waiters.delete(m.type);
    resolve?.(m);
  });
  w.ask = (msg, reply) => new Promise((resolve, reject) => {
    waiters.set(reply, resolve);
    w.once('exit', (code) => reject(new Error(`stream worker exited (${code})`)));
    w.send(msg);
  });
  return w;
}

async function main() {
  console.log(`# load average at start: ${require('node:os').loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const limit = Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim());
  if (limit < STREAMS + 2000) throw new Error(`ulimit -n is ${limit}: the platform needs > ${STREAMS + 2000} open files; raise it (ulimit -n 65536) and re-run`);
  const p = await startStandalone({
    uploadBuild: false,
    env: process.env.BENCH_HEAP_SNAPSHOT_DIR ? { BENCH_HEAP_SNAPSHOT_DIR: process.env.BENCH_HEAP_SNAPSHOT_DIR } : {},
    nodeArgs: ['--expose-gc', '-r', path.join(__dirname, 'lib', 'memory-probe.js')],
  });
  const agent = keepAliveAgent(PATCH_SOCKETS);
  const workers = [];
  const onSignal = () => { for (const w of workers) w.kill('SIGKILL'); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let t = Date.now();
    const lobbies = await setupLobbies(p.port, p.clientKey, { lobbies: LOBBIES, membersPerLobby: MEMBERS, maxPlayers: Math.max(MEMBERS, 2), prefix: 's', concurrency: 32, agent });
    console.log(`# ${LOBBIES} lobbies × ${MEMBERS} players set up in ${((Date.now() - t) / 1000).toFixed(1)} s`);
    // The baseline is taken once the platform is quiet: the lobbies read model has caught up with the
    // setup, and the recent updates kept for late-opening streams (5 s) are gone.
    const lagS = await waitForReadModel(agent, p.port, p.clientKey, STREAMS);
    console.log(`# lobbies read model caught up ${lagS.toFixed(1)} s after the setup`);
    await sleep(6000);
    const before = await memory(p);

    t = Date.now();
    for (let i = 0; i < WORKERS; i++) workers.push(startWorker());
    const players = lobbies.flatMap((l) => l.players);
    const progress = setInterval(() => {
      const c = workers.reduce((n, w) => n + (w.progress?.connected ?? 0), 0);
      console.error(`# ${c} streams connected`);
    }, 5000);
    const opened = await Promise.all(workers.map((w, i) => w.ask({
      type: 'open', port: p.port, key: p.clientKey, players: players.filter((_, j) => j % WORKERS === i), concurrency: OPEN_CONCURRENCY,
    }, 'opened')));
    clearInterval(progress);
    const connected = opened.reduce((n, o) => n + o.connected, 0);
    const failedOpen = opened.reduce((n, o) => n + o.failed, 0);
    const openS = (Date.now() - t) / 1000;
    console.log(`# ${connected} streams connected (${failedOpen} failed) in ${openS.toFixed(1)} s`);
    await sleep(3000);
    const after = await memory(p);

    // Drive RATE updates/s, open loop, round-robin over lobbies (update k: lobby k % L, its member ⌊k / L⌋ % M).
    await Promise.all(workers.map((w) => w.ask({ type: 'reset' }, 'reset')));
    const patchMs = [];
    const statuses = new Map();
    let errors = 0;
    let skipped = 0;
    let inFlight = 0;
    let sent = 0;
    const pending = new Set();
    const total = RATE * DRIVE_S;
    const t0 = Date.now();
    // CLOCK_MONOTONIC µs, the clock of --cpu-prof sample times: to cut the drive out of a platform profile.
    console.log(`# drive from monotonic ${process.hrtime.bigint() / 1000n} us`);
    while (sent < total) {
      const due = Math.min(total, Math.floor(((Date.now() - t0) / 1000) * RATE));
      for (; sent < due; sent++) {
        if (inFlight >= MAX_IN_FLIGHT) { skipped++; continue; }
        const lobby = lobbies[sent % LOBBIES];
        const player = lobby.players[Math.floor(sent / LOBBIES) % lobby.players.length];
        inFlight++;
        const req = request(agent, p.port, 'PATCH', '/api/v3/lobbies/default/me', {
          headers: playerHeaders(p.clientKey, player), body: { state: { sentAt: Date.now() } },
        }).then((r) => {
          patchMs.push(r.ms);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status !== 200 && statuses.get(r.status) <= 3) console.error(`# PATCH ${player}: ${r.status} ${JSON.stringify(r.body)}`);
        }, (err) => {
          errors++;
          if (errors <= 3) console.error(`# PATCH ${player}: ${err.message}`);
        }).finally(() => { inFlight--; pending.delete(req); });
        pending.add(req);
      }
      await sleep(5);
    }
    const driveS = (Date.now() - t0) / 1000;
    await Promise.all(pending);
    console.log(`# drive until monotonic ${process.hrtime.bigint() / 1000n} us`);
    const drainedS = (Date.now() - t0) / 1000;
    await sleep(2000); // deliveries still in flight
    const end = await memory(p);
    const stats = await Promise.all(workers.map((w) => w.ask({ type: 'collect' }, 'stats')));

    const latencies = stats.flatMap((s) => s.latencies).sort((a, b) => a - b);
    const deliveries = stats.reduce((n, s) => n + s.deliveries, 0);
    const closedEarly = stats.reduce((n, s) => n + s.closedEarly, 0);
    const okPatches = statuses.get(200) ?? 0;
    const expected = okPatches * MEMBERS;
    patchMs.sort((a, b) => a - b);
    if (connected === 0 || latencies.length === 0 || patchMs.length === 0) throw new Error(`nothing measured: ${connected} streams, ${latencies.length} deliveries, ${patchMs.length} PATCH answers`);
    const [d50, d95, d99] = [50, 95, 99].map((q) => percentile(latencies, q));
    const [p50, p99] = [50, 99].map((q) => percentile(patchMs, q));
    const rssPer = (after.vmRss - before.vmRss) / connected;
    const heapPer = (after.heapUsed - before.heapUsed) / connected;
    const externalPer = (after.external - before.external) / connected;

    console.log(`lobby_streams.streams ${connected}`);
    console.log(`lobby_streams.open_failed ${failedOpen}`);
    console.log(`lobby_streams.open_s ${openS.toFixed(1)}`);
    console.log(`lobby_streams.setup_read_model_lag_s ${lagS.toFixed(1)}`);
    console.log(`lobby_streams.rss_before_mb ${(before.vmRss / 1048576).toFixed(1)}`);
    console.log(`lobby_streams.rss_after_mb ${(after.vmRss / 1048576).toFixed(1)}`);
    console.log(`lobby_streams.rss_per_stream_kb ${kb(rssPer)}`);
    console.log(`lobby_streams.heap_per_stream_kb ${kb(heapPer)}`);
    console.log(`lobby_streams.external_per_stream_kb ${kb(externalPer)}`);
    // RSS = V8 heap committed (heapTotal, above heapUsed: free space V8 keeps) + native memory (sockets, parsers, malloc).
    console.log(`lobby_streams.heap_committed_per_stream_kb ${kb((after.heapTotal - before.heapTotal) / connected)}`);
    console.log(`lobby_streams.native_per_stream_kb ${kb((after.vmRss - after.heapTotal - (before.vmRss - before.heapTotal)) / connected)}`);
    console.log(`lobby_streams.rss_after_drive_mb ${(end.vmRss / 1048576).toFixed(1)}`);
    // After updates every stream of a lobby points at the one shared Lobby object of the last update,
    // instead of its own copy from the `connected` reply: the difference is that copy.
    console.log(`lobby_streams.heap_per_stream_after_drive_kb ${kb((end.heapUsed - before.heapUsed) / connected)}`);
    console.log(`lobby_streams.updates_sent ${sent - skipped}`);
    console.log(`lobby_streams.updates_skipped ${skipped}`);
    console.log(`lobby_streams.updates_per_s ${(okPatches / drainedS).toFixed(0)}`);
    console.log(`lobby_streams.patch_non200 ${sent - skipped - okPatches - errors}`);
    console.log(`lobby_streams.patch_errors ${errors}`);
    console.log(`lobby_streams.patch_p50_ms ${p50.toFixed(2)}`);
    console.log(`lobby_streams.patch_p99_ms ${p99.toFixed(2)}`);
    console.log(`lobby_streams.deliveries ${deliveries}`);
    console.log(`lobby_streams.deliveries_expected ${expected}`);
    console.log(`lobby_streams.streams_closed_early ${closedEarly}`);
    console.log(`lobby_streams.delivery_p50_ms ${d50.toFixed(1)}`);
    console.log(`lobby_streams.delivery_p95_ms ${d95.toFixed(1)}`);
    console.log(`lobby_streams.delivery_p99_ms ${d99.toFixed(1)}`);
    console.log(`lobby_streams.delivery_max_ms ${latencies[latencies.length - 1].toFixed(1)}`);
    console.log(`lobby_streams.target.streams_${STREAMS} ${connected === STREAMS ? 'PASS' : 'MISS'}`);
    console.log(`lobby_streams.target.rss_per_stream_lt_20kb ${rssPer < TARGET_BYTES_PER_STREAM ? 'PASS' : 'MISS'}`);
    console.log(`lobby_streams.target.delivery_p99_lt_${TARGET_P99_MS}ms ${d99 < TARGET_P99_MS ? 'PASS' : 'MISS'}`);
    console.log(`lobby_streams.target.rate_${RATE}_per_s ${skipped === 0 && okPatches === sent && drainedS < DRIVE_S * 1.1 ? 'PASS' : 'MISS'}`);
    console.log(`lobby_streams.target.all_delivered ${deliveries === expected ? 'PASS' : 'MISS'}`);
    console.log(`# ${connected} streams: RSS ${kb(rssPer)} KB/stream (heap ${kb(heapPer)} KB); ${okPatches} updates in ${drainedS.toFixed(1)} s ` +
      `(sending took ${driveS.toFixed(1)} s), ${deliveries}/${expected} deliveries, delivery p50 ${d50.toFixed(1)} ms, p99 ${d99.toFixed(1)} ms; PATCH p99 ${p99.toFixed(1)} ms`);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    for (const w of workers) if (w.connected) w.send({ type: 'close' });
    agent.destroy();
    await p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
