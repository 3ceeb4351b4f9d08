// Pool claims, standalone: POST /v3/servers/start answered by claiming a ready pool server.
// A pool of POOL tiny game servers (bench/fixtures/tiny-game) is filled first; then 32 clients claim
// CLAIMS servers as fast as they can while the pool refills behind them. Prints claim latency
// (p50/p99), sustained claims/s, and checks from the event store that no pool server was claimed twice.
// Needs the build (npm run build) and this machine's PostgreSQL (bench/lib/standalone.js adminDatabaseUrl; the platform runs on a fresh
// database there so the events table can be inspected afterwards).
// Usage: node bench/pool-claim.js   (BENCH_POOL, BENCH_CLAIMS, BENCH_CONCURRENCY override)
'use strict';
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { adminDatabaseUrl, databaseUrl, startStandalone, percentile, sleep, tinyGameZip, waitQuiet } = require('./lib/standalone');

const POOL = Number(process.env.BENCH_POOL ?? 450);
const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ADMIN_URL = adminDatabaseUrl();

async function withAdmin(fn) {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try { return await fn(c); } finally { await c.end(); }
}

async function poolState(p) {
  let ready = 0;
  let total = 0;
  for (let offset = 0; ;) {
    const r = await p.api('GET', `/v3/servers?region=us-east&include_launching=true&include_pool=true&limit=100&offset=${offset}`, { key: p.serverKey });
    for (const s of r.body.servers) {
      if (!s.is_pool_server || s.pool_claimed_at) continue;
      total++;
      if (s.status === 'running') ready++;
    }
    if (!r.body.has_more || r.body.servers.length === 0) return { ready, total };
    offset += r.body.servers.length;
  }
}

async function main() {
  const dbName = `sp_bench_pool_${randomBytes(4).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${dbName}`));
  const dbUrl = databaseUrl(ADMIN_URL, dbName);
  const p = await startStandalone({ uploadBuild: false, portRange: '20000-23999', env: { DATABASE_URL: dbUrl } });
  try {
    const ticket = await p.api('POST', '/v3/builds/upload-url?name=tiny', { key: p.serverKey });
    await p.api('PUT', ticket.body.upload_url, { body: await tinyGameZip(), headers: { 'content-type': 'application/zip' } });
    for (let i = 0; i < 100; i++) {
      if ((await p.api('GET', `/v3/builds/${ticket.body.build_id}`, { key: p.serverKey })).body.status === 'ready') break;
      await sleep(100);
    }
    const set = await p.api('POST', '/v3/projects/settings', {
      key: p.serverKey, body: { pool_config: { enabled: true, regions: { 'us-east': { min_ready: POOL, max: POOL } }, build_name: 'tiny' } },
    });
    if (set.status !== 200) throw new Error(`pool_config: ${set.status} ${JSON.stringify(set.body)}`);
    const fillStart = Date.now();
    let state;
    do {
      await sleep(1000);
      state = await poolState(p);
    } while (state.ready < POOL && Date.now() - fillStart < 180_000);
    console.log(`# pool of ${state.ready} ready in ${((Date.now() - fillStart) / 1000).toFixed(1)} s`);
    if (state.ready < POOL) throw new Error(`pool did not fill: ${state.ready}/${POOL}`);

    if (process.env.BENCH_NO_REFILL) {
      // min_ready 0 keeps every ready server but starts no new ones: claims measured without refill work.
      await p.api('POST', '/v3/projects/settings', { key: p.serverKey, body: { pool_config: { enabled: true, regions: { 'us-east': { min_ready: 0, max: POOL } }, build_name: 'tiny' } } });
      await sleep(500);
    }
    // the pool's fill leaves work behind (projections, the lifecycle workflow's timers): claims start once it is done
    console.log(`# platform quiet after ${await waitQuiet(p.pid)} ms`);
    const latencies = [];
    const ids = [];
    let cold = 0;
    let failed = 0;
    let next = 0;
    const t0 = process.hrtime.bigint();
    if (process.env.BENCH_PROFILE_DIR) console.log(`# claim window starts at ${t0 / 1000n} us (monotonic)`);
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < CLAIMS) {
        const i = next++;
        const s = process.hrtime.bigint();
        const r = await p.api('POST', '/v3/servers/start', { key: p.serverKey, body: { name: `claim-${i}`, region: 'us-east', version_tag: 'tiny', custom_data: { i } } });
        const ms = Number(process.hrtime.bigint() - s) / 1e6;
        if (r.status !== 201) failed++;
        else if (!r.body.is_pool_server) cold++;
        else { latencies.push(ms); ids.push(r.body.instance_id); }
      }
    }));
    const t1 = process.hrtime.bigint();
    if (process.env.BENCH_PROFILE_DIR) console.log(`# claim window ends at ${t1 / 1000n} us (monotonic)`);
    const seconds = Number(t1 - t0) / 1e9;
    const doubles = await withAdmin(async () => {
      const c = new Client({ connectionString: dbUrl });
      await c.connect();
      try {
        const { rows } = await c.query(`SELECT stream_id, count(*) FROM events WHERE type = 'ServerPoolClaimed' GROUP BY stream_id HAVING count(*) > 1`);
        const { rows: [{ n }] } = await c.query(`SELECT count(*)::int AS n FROM events WHERE type = 'ServerPoolClaimed'`);
        return { rows: rows.length, claimEvents: n };
      } finally { await c.end(); }
    });
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const perSecond = latencies.length / seconds;
    const dupIds = ids.length - new Set(ids).size;
    console.log(`pool_claim.pool_size ${POOL}`);
    console.log(`pool_claim.concurrency ${CONCURRENCY}`);
    console.log(`pool_claim.claimed ${latencies.length}`);
    console.log(`pool_claim.cold_fallbacks ${cold}`);
    console.log(`pool_claim.failed ${failed}`);
    console.log(`pool_claim.p50_ms ${p50.toFixed(1)}`);
    console.log(`pool_claim.p99_ms ${p99.toFixed(1)}`);
    console.log(`pool_claim.claims_per_s ${perSecond.toFixed(0)}`);
    console.log(`pool_claim.claim_events ${doubles.claimEvents}`);
    console.log(`pool_claim.double_claims ${doubles.rows + dupIds}`);
    console.log(`pool_claim.target.p50_lt_15ms ${p50 < 15 ? 'PASS' : 'MISS'}`);
    console.log(`pool_claim.target.p99_lt_50ms ${p99 < 50 ? 'PASS' : 'MISS'}`);
    console.log(`pool_claim.target.ge_300_per_s ${perSecond >= 300 ? 'PASS' : 'MISS'}`);
    console.log(`pool_claim.target.zero_double_claims ${doubles.rows + dupIds === 0 ? 'PASS' : 'MISS'}`);
    console.log(`# ${latencies.length} claims in ${seconds.toFixed(2)} s with ${CONCURRENCY} clients: ${perSecond.toFixed(0)}/s, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; ${cold} cold, ${failed} failed, ${doubles.rows + dupIds} double claims`);
  } finally {
    await p.stop();
    await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
