// Enqueue → in_game on a warm pool, standalone (a fresh database on this machine's PostgreSQL: bench/lib/standalone.js adminDatabaseUrl): a pool of BENCH_POOL
// (40) tiny game servers (bench/fixtures/tiny-game) fills in eu-west; then BENCH_PAIRS (20) pairs of solo
// lobbies enqueue in a 1v1 mode, one pair every 1000 / BENCH_PAIR_RATE ms; each lobby polls
// `GET …/me` every 10 ms until it is `in_game` (its match formed, the pool server claimed for the match,
// the lobby given it, the server already running). Prints p50/p90/p99/max from the enqueue request's
// send to the first answer showing in_game, and how many matches were served from the pool.
// Needs the build (npm run build). Usage: node bench/matchmaking-in-game.js
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const yazl = require('yazl');
const { adminDatabaseUrl, databaseUrl, startStandalone, percentile, sleep } = require('./lib/standalone');

const POOL = Number(process.env.BENCH_POOL ?? 40);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 20);
const PAIR_RATE = Number(process.env.BENCH_PAIR_RATE ?? 2);
const ADMIN_URL = adminDatabaseUrl();
const TARGET_P50_MS = 300;

function tinyZip() {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    zip.addFile(path.join(__dirname, 'fixtures', 'tiny-game', 'server'), 'server', { mode: fs.constants.S_IFREG | 0o755 });
    zip.end();
    const chunks = [];
    zip.outputStream.on('data', (c) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

async function withAdmin(fn) {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try { return await fn(c); } finally { await c.end(); }
}

async function readyInPool(p) {
  let ready = 0;
  for (let offset = 0; ;) {
    const r = await p.api('GET', `/v3/servers?region=eu-west&include_pool=true&limit=100&offset=${offset}`, { key: p.serverKey });
    for (const s of r.body.servers) if (s.is_pool_server && !s.pool_claimed_at) ready++;
    if (!r.body.has_more || r.body.servers.length === 0) return ready;
    offset += r.body.servers.length;
  }
}

async function main() {
  const dbName = `sp_bench_mmgame_${randomBytes(4).toString('hex')}`;
  await withAdmin((c) => c.query(`CREATE DATABASE ${dbName}`));
  const dbUrl = databaseUrl(ADMIN_URL, dbName);
  const p = await startStandalone({ uploadBuild: false, portRange: '20000-21999', env: { DATABASE_URL: dbUrl } });
  try {
    const ticket = await p.api('POST', '/v3/builds/upload-url?name=tiny', { key: p.serverKey });
    await p.api('PUT', ticket.body.upload_url, { body: await tinyZip(), headers: { 'content-type': 'application/zip' } });
    for (let i = 0; i < 100; i++) {
      if ((await p.api('GET', `/v3/builds/${ticket.body.build_id}`, { key: p.serverKey })).body.status === 'ready') break;
      await sleep(100);
    }
    const set = await p.api('POST', '/v3/projects/settings', { key: p.serverKey, body: {
      pool_config: { enabled: true, regions: { 'eu-west': { min_ready: POOL, max: POOL } }, build_name: 'tiny' },
      lobby_configs: [{ name: 'mm', serverSettings: { version_tag: 'tiny' }, matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } }],
    } });
    if (set.status !== 200) throw new Error(`settings: ${set.status} ${JSON.stringify(set.body)}`);
    const fillStart = Date.now();
    let ready = 0;
    while (ready < POOL && Date.now() - fillStart < 180_000) {
      await sleep(1000);
      ready = await readyInPool(p);
    }
    console.log(`# pool of ${ready} ready in ${((Date.now() - fillStart) / 1000).toFixed(1)} s`);
    if (ready < POOL) throw new Error(`pool did not fill: ${ready}/${POOL}`);

    const players = Array.from({ length: PAIRS * 2 }, (_, i) => `g${i}`);
    for (const who of players) {
      const r = await p.api('POST', '/v3/lobbies/mm', { key: p.clientKey, headers: { 'x-player-id': who }, body: { region: 'eu-west' } });
      if (r.status !== 201) throw new Error(`create ${who}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    const latencies = [];
    const servers = new Set();
    const runs = players.map(async (who, i) => {
      await sleep(Math.floor(i / 2) * (1000 / PAIR_RATE));
      const t0 = performance.now();
      const r = await p.api('POST', '/v3/lobbies/mm/me/matchmaking', { key: p.clientKey, headers: { 'x-player-id': who }, body: { mode: 'duel' } });
      if (r.status !== 200) throw new Error(`enqueue ${who}: ${r.status} ${JSON.stringify(r.body)}`);
      for (;;) {
        const me = await p.api('GET', '/v3/lobbies/mm/me', { key: p.clientKey, headers: { 'x-player-id': who } });
        if (me.body.status === 'in_game') {
          latencies.push(performance.now() - t0);
          servers.add(me.body.server.instance_id);
          return;
        }
        if (performance.now() - t0 > 30_000) throw new Error(`${who} not in_game in 30 s: ${me.body.status}`);
        await sleep(10);
      }
    });
    await Promise.all(runs);
    let fromPool = 0;
    for (const id of servers) if ((await p.api('GET', `/v3/servers/${id}`, { key: p.serverKey })).body.is_pool_server) fromPool++;
    latencies.sort((a, b) => a - b);
    const [p50, p90, p99] = [50, 90, 99].map((q) => percentile(latencies, q));
    console.log(`matchmaking_in_game.lobbies ${latencies.length}`);
    console.log(`matchmaking_in_game.matches ${servers.size} (from the pool: ${fromPool})`);
    console.log(`matchmaking_in_game.enqueue_to_in_game_ms p50 ${p50.toFixed(0)} p90 ${p90.toFixed(0)} p99 ${p99.toFixed(0)} max ${latencies[latencies.length - 1].toFixed(0)}`);
    console.log(`matchmaking_in_game.target.p50 ${p50 < TARGET_P50_MS ? 'PASS' : 'MISS'} (< ${TARGET_P50_MS} ms)`);
  } finally {
    await p.stop();
    await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
