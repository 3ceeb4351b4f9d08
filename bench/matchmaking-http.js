// Matchmaking over HTTP, standalone (with DATABASE_URL: a PostgreSQL the bench can read). Three phases:
//  1. saturation: SAT_LOBBIES solo lobbies (created first, not timed) enqueue back to back (CONCURRENCY
//     clients) in a 1v1 mode; figure: lobbies matched per second, from the first queue time to the last
//     match time the service recorded (match_waits: MatchmakingStarted.at → LobbyMatchFound.at, which is
//     the proposal's time); `wall` figures: to the LobbyMatched event's commit (the lobby shows `matched`);
//  2. paced: RATE lobbies/s for PACED_S s; figure: p50/p99 of enqueue → matched (the same recorded times,
//     so the HTTP round trip of the enqueue itself is not in it);
//  3. explain: QUEUED lobbies that never match (ratings 10 apart, a window of 0) stay queued (their mode's timeout is an hour: enqueuing 100,000 takes minutes); then
//     EXPLAINS `GET …/me/matchmaking` of random players, first one at a time (a player's latency), then
//     EXPLAIN_CLIENTS (8) at once (saturated: mostly queueing); figure: p50/p99 of each.
// The mode's servers are refused on purpose (no build has its version tag): the bench measures matching,
// not game processes (enqueue → in_game on a warm pool is not measured here yet).
// Needs the build (npm run build) and PostgreSQL at BENCH_DATABASE_ADMIN_URL (default: this machine's, over its Unix socket
// /var/run/postgresql when it has one, as the standalone platform talks to its embedded database; else 127.0.0.1:5432).
// BENCH_PROFILE_DIR=dir: a CPU profile of the platform; the saturation, paced and explain phases' windows are printed (bench/lib/profile-window.js reads them).
// BENCH_QUEUED_FIRST=1: phase 3's queue is filled before phase 1, so the matching phases run beside QUEUED waiting lobbies.
// Usage: node bench/matchmaking-http.js  (BENCH_QUEUED_FIRST, BENCH_SAT_LOBBIES, BENCH_RATE, BENCH_PACED_S, BENCH_QUEUED, BENCH_EXPLAINS, BENCH_EXPLAIN_CLIENTS, BENCH_CONCURRENCY)
'use strict';
const { Client } = require('pg');
const { adminDatabaseUrl, databaseUrl, startStandalone, percentile, sleep, cpuSeconds, postgresCpu } = require('./lib/standalone');
const { keepAliveAgent, request, runPool, playerHeaders } = require('./lib/lobby');

const SAT_LOBBIES = Number(process.env.BENCH_SAT_LOBBIES ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const PACED_S = Number(process.env.BENCH_PACED_S ?? 10);
const QUEUED = Number(process.env.BENCH_QUEUED ?? 10_000);
const EXPLAINS = Number(process.env.BENCH_EXPLAINS ?? 2000);
const EXPLAIN_CLIENTS = Number(process.env.BENCH_EXPLAIN_CLIENTS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const QUEUED_FIRST = process.env.BENCH_QUEUED_FIRST === '1';
const ADMIN_URL = adminDatabaseUrl();
const CONFIG = 'mm';

async function freshDatabase() {
  const name = `sp_bench_mm_${process.pid}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: databaseUrl(ADMIN_URL, name),
    async drop() {
      const c = new Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

async function createLobbies(agent, port, key, prefix, count, state) {
  const players = [];
  await runPool(count, CONCURRENCY, async (i) => {
    const who = `${prefix}${i}`;
    const r = await request(agent, port, 'POST', `/api/v3/lobbies/${CONFIG}`, { headers: playerHeaders(key, who), body: { region: 'eu-west', state: state(i) } });
    if (r.status !== 201) throw new Error(`create ${who}: ${r.status} ${JSON.stringify(r.body)}`);
    players[i] = who;
  });
  return players;
}

const enqueue = (agent, port, key, who, mode) => request(agent, port, 'POST', `/api/v3/lobbies/${CONFIG}/me/matchmaking`, { headers: playerHeaders(key, who), body: { mode } });

/** Waits until `matches` matches are over and no workflow intent waits; returns how long that took (ms). */
async function settled(db, matches, timeoutMs = 300_000) {
  const started = performance.now();
  for (;;) {
    const { rows } = await db.query(`SELECT (SELECT count(*)::int FROM events WHERE type IN ('MatchFailed', 'MatchCompleted', 'MatchAborted', 'MatchDissolved')) AS over,
      (SELECT count(*)::int FROM workflow_intents) AS intents`);
    if ((rows[0].over >= matches && rows[0].intents === 0) || performance.now() - started > timeoutMs) break;
    await sleep(100);
  }
  return performance.now() - started;
}

/**
 * Waits until match_waits holds a row for each of these lobbies; returns their queue time `q`, the match
 * time the service recorded `m` (the proposal's, carried by LobbyMatchFound), and `w`: when the lobby's
 * LobbyMatched was written (the events table's created_at), i.e. when the lobby really showed `matched`.
 */
async function matched(db, lobbies, count, timeoutMs = 300_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query('SELECT count(*)::int AS n FROM match_waits WHERE lobby_id = ANY($1::text[])', [lobbies]);
    if (rows[0].n >= count || Date.now() > until) break;
    await sleep(250);
  }
  await sleep(500); // LobbyMatched follows LobbyMatchFound
  const { rows } = await db.query(`SELECT extract(epoch FROM w.queued_at) * 1000 AS q, extract(epoch FROM w.matched_at) * 1000 AS m, extract(epoch FROM e.created_at) * 1000 AS w
    FROM match_waits w LEFT JOIN events e ON e.stream_id = 'lobby-' || w.lobby_id AND e.type = 'LobbyMatched' AND e.data->>'matchId' = w.match_id
    WHERE w.lobby_id = ANY($1::text[])`, [lobbies]);
  return rows.map((r) => ({ q: Number(r.q), m: Number(r.m), w: r.w === null ? NaN : Number(r.w) }));
}

function stats(waits, to = 'm') {
  const ms = waits.map((w) => w[to] - w.q).filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return { n: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms[ms.length - 1] ?? NaN };
}

async function lobbyIds(agent, port, key, players) {
  const ids = [];
  await runPool(players.length, CONCURRENCY, async (i) => {
    const r = await request(agent, port, 'GET', `/api/v3/lobbies/${CONFIG}/me`, { headers: playerHeaders(key, players[i]) });
    ids[i] = r.body.id;
  });
  return ids;
}

/**
 * QUEUED lobbies that never match (ratings 10 apart, a window of 0) enqueued, until the matchmaking
 * service's queue table holds every ticket; then 2 s more for the rest to settle. Returns them.
 */
async function fillQueue(agent, p, db) {
  const queued = await createLobbies(agent, p.port, p.clientKey, 'q', QUEUED, (i) => ({ mmr: i * 10 }));
  await runPool(queued.length, CONCURRENCY, async (i) => {
    const r = await enqueue(agent, p.port, p.clientKey, queued[i], 'never');
    if (r.status !== 200) throw new Error(`enqueue ${queued[i]}: ${r.status}`);
  });
  // Steady state: the matchmaking service's queue table holds every ticket (its projection catches up
  // after the burst of enqueues), then 2 s more for the rest to settle. The catch-up time is a figure too.
  const enqueued = performance.now();
  for (;;) {
    const { rows } = await db.query("SELECT count(*)::int AS n FROM match_tickets WHERE mode = 'never'");
    if (rows[0].n >= QUEUED) break;
    await sleep(200);
  }
  console.log(`matchmaking.explain.queue_caught_up_after_ms ${(performance.now() - enqueued).toFixed(0)}`);
  await sleep(2000);
  return queued;
}

async function main() {
  const database = await freshDatabase();
  const p = await startStandalone({ uploadBuild: false, env: { DATABASE_URL: database.url } });
  const db = new Client({ connectionString: database.url });
  await db.connect();
  const agent = keepAliveAgent(CONCURRENCY);
  try {
    const settings = await p.api('POST', '/v3/projects/settings', { key: p.serverKey, body: { lobby_configs: [{
      name: CONFIG, serverSettings: { version_tag: 'bench-no-build' },
      matchmaking: { modes: {
        duel: { teams: 2, playersPerTeam: 1 },
        never: { teams: 2, playersPerTeam: 1, timeout: 3600, rules: [{ type: 'difference', field: 'mmr', maxDifference: 0 }] },
      } },
    }] } });
    if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${JSON.stringify(settings.body)}`);

    // BENCH_QUEUED_FIRST=1: the never-matching lobbies wait in the queue through every phase (matching with a deep queue).
    const queuedFirst = QUEUED_FIRST ? await fillQueue(agent, p, db) : null;

    // 1. saturation
    const sat = await createLobbies(agent, p.port, p.clientKey, 'sat', SAT_LOBBIES, () => ({}));
    const satIds = await lobbyIds(agent, p.port, p.clientKey, sat);
    console.log(`# saturation from monotonic ${process.hrtime.bigint() / 1000n} us`);
    const satCpu = { platform: cpuSeconds(p.pid), postgres: postgresCpu(), bench: process.cpuUsage() };
    const t0 = performance.now();
    await runPool(sat.length, CONCURRENCY, async (i) => {
      const r = await enqueue(agent, p.port, p.clientKey, sat[i], 'duel');
      if (r.status !== 200) throw new Error(`enqueue ${sat[i]}: ${r.status} ${JSON.stringify(r.body)}`);
    });
    const enqueueS = (performance.now() - t0) / 1000;
    const satWaits = await matched(db, satIds, SAT_LOBBIES);
    console.log(`# saturation until monotonic ${process.hrtime.bigint() / 1000n} us`);
    const span = (Math.max(...satWaits.map((w) => w.m)) - Math.min(...satWaits.map((w) => w.q))) / 1000;
    const s1 = stats(satWaits);
    console.log(`matchmaking.saturation.lobbies ${SAT_LOBBIES}`);
    console.log(`matchmaking.saturation.enqueue_per_s ${(SAT_LOBBIES / enqueueS).toFixed(0)}`);
    console.log(`matchmaking.saturation.matched ${satWaits.length}`);
    console.log(`matchmaking.saturation.matched_per_s ${(satWaits.length / span).toFixed(0)} (target ≥ 500)`);
    console.log(`matchmaking.saturation.enqueue_to_matched_ms p50 ${s1.p50.toFixed(0)} p99 ${s1.p99.toFixed(0)} max ${s1.max.toFixed(0)}`);
    const w1 = stats(satWaits, 'w');
    const wallSpan = (Math.max(...satWaits.filter((w) => !Number.isNaN(w.w)).map((w) => w.w)) - Math.min(...satWaits.map((w) => w.q))) / 1000;
    console.log(`matchmaking.saturation.wall.matched_per_s ${(w1.n / wallSpan).toFixed(0)} (to LobbyMatched written; ${w1.n} lobbies)`);
    console.log(`matchmaking.saturation.wall.enqueue_to_matched_ms p50 ${w1.p50.toFixed(0)} p99 ${w1.p99.toFixed(0)} max ${w1.max.toFixed(0)}`);

    // The saturation's matches play out (their server starts are refused three times each, then the lobbies
    // go back to waiting) before the paced phase: it measures a steady rate, not the tail of the burst.
    const settledIn = await settled(db, SAT_LOBBIES / 2);
    console.log(`matchmaking.saturation.settled_after_ms ${settledIn.toFixed(0)} (every match over, no intent waiting)`);
    // The work of the burst, from the first enqueue until it settled: what the wall rate is made of on a busy
    // machine (2 CPUs: the platform, PostgreSQL and this bench's clients share them). Steadier than a rate.
    const perLobby = (seconds) => ((seconds * 1000) / SAT_LOBBIES).toFixed(2);
    const benchCpu = process.cpuUsage(satCpu.bench);
    console.log(`matchmaking.saturation.cpu_ms_per_lobby platform ${perLobby(cpuSeconds(p.pid) - satCpu.platform)} postgres ${perLobby(postgresCpu() - satCpu.postgres)} bench ${perLobby((benchCpu.user + benchCpu.system) / 1e6)} (first enqueue until settled, its matches' refused starts included)`);

    // 2. paced
    const n = RATE * PACED_S;
    const paced = await createLobbies(agent, p.port, p.clientKey, 'paced', n, () => ({}));
    const pacedIds = await lobbyIds(agent, p.port, p.clientKey, paced);
    await sleep(2000);
    console.log(`# paced from monotonic ${process.hrtime.bigint() / 1000n} us`);
    const cpuBefore = cpuSeconds(p.pid);
    const start = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const i = next++;
        const due = start + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const r = await enqueue(agent, p.port, p.clientKey, paced[i], 'duel');
        if (r.status !== 200) throw new Error(`enqueue ${paced[i]}: ${r.status}`);
      }
    }));
    const pacedWaits = await matched(db, pacedIds, n);
    // The platform's CPU per lobby matched: what the paced latency is made of once the process is busy.
    const cpuPerLobby = ((cpuSeconds(p.pid) - cpuBefore) * 1000) / n;
    const s2 = stats(pacedWaits);
    const w2 = stats(pacedWaits, 'w');
    console.log(`# paced until monotonic ${process.hrtime.bigint() / 1000n} us`);
    console.log(`matchmaking.paced.rate_per_s ${RATE}`);
    console.log(`matchmaking.paced.platform_cpu_ms_per_lobby ${cpuPerLobby.toFixed(2)} (enqueue to matched, and what followed until the wait ended)`);
    console.log(`matchmaking.paced.matched ${s2.n}`);
    console.log(`matchmaking.paced.enqueue_to_matched_ms p50 ${s2.p50.toFixed(0)} (target < 100) p99 ${s2.p99.toFixed(0)} (target < 300) max ${s2.max.toFixed(0)}`);
    console.log(`matchmaking.paced.wall.enqueue_to_matched_ms p50 ${w2.p50.toFixed(0)} p99 ${w2.p99.toFixed(0)} max ${w2.max.toFixed(0)} (to LobbyMatched written; ${w2.n} lobbies)`);

    // 3. explain with QUEUED lobbies in the queue (filled first with BENCH_QUEUED_FIRST)
    const queued = queuedFirst ?? await fillQueue(agent, p, db);
    // Filled first: the paced phase's matches play out before the explains (filling the queue takes that long otherwise).
    if (queuedFirst) console.log(`matchmaking.paced.settled_after_ms ${(await settled(db, (SAT_LOBBIES + n) / 2)).toFixed(0)}`);
    console.log(`matchmaking.explain.queued ${QUEUED}`);
    // One client at a time: the latency a player's explain sees. Then EXPLAIN_CLIENTS at once, closed loop:
    // the process saturated, so that figure is mostly the queue of requests before each one.
    for (const clients of [1, EXPLAIN_CLIENTS]) {
      const latencies = [];
      let bad = 0;
      const badSeen = [];
      // The window of a CPU profile to read (BENCH_PROFILE_DIR; bench/lib/profile-window.js).
      console.log(`# explain ${clients} from monotonic ${process.hrtime.bigint() / 1000n} us`);
      await runPool(EXPLAINS, clients, async (k) => {
        const who = queued[(k * 7919) % queued.length];
        const r = await request(agent, p.port, 'GET', `/api/v3/lobbies/${CONFIG}/me/matchmaking`, { headers: playerHeaders(p.clientKey, who) });
        if (r.status !== 200 || r.body.candidates !== 0) {
          bad++;
          if (badSeen.length < 3) badSeen.push(`${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
        }
        latencies.push(r.ms);
      });
      console.log(`# explain ${clients} until monotonic ${process.hrtime.bigint() / 1000n} us`);
      latencies.sort((a, b) => a - b);
      console.log(`matchmaking.explain.clients_${clients}.ms p50 ${percentile(latencies, 50).toFixed(2)} p99 ${percentile(latencies, 99).toFixed(2)} max ${latencies[latencies.length - 1].toFixed(2)} (target p99 < 10) bad ${bad}`);
      for (const b of badSeen) console.log(`# an explain not 200 with 0 candidates: ${b}`);
    }
  } finally {
    agent.destroy();
    await db.end().catch(() => undefined);
    await p.stop();
    if (!process.env.BENCH_KEEP_DB) await database.drop().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
