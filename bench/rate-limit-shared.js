// Rate limits shared by gateway replicas (ADR-0008), on the distributed platform: 2 gateways with shared
// limits (the default) and 2 with SPAWNPOINT_RATE_LIMITS=local, on one set of services.
// 1. Accuracy: a key limited to N/s (BENCH_LIMIT, 200) sends 2N/s for BENCH_ACCURACY_S (10) s, alternating
//    the two gateways of a kind, paced; allowed / (N + N × elapsed) (a token bucket's capacity plus its refill).
// 2. Cost: GET /v3/servers/{id} throughput (autocannon, BENCH_CONNECTIONS 50, 2 s warm-up + BENCH_DURATION_S 10 s)
//    on a shared-limits gateway and on a local-limits one, alternately BENCH_ROUNDS (2) times each, key limit
//    100,000/s (leases of 5,000 tokens); the ratio shared / local of the best rounds.
// Needs the build, PostgreSQL and NATS (hold the lock: flock /tmp/sp-test.lock node bench/rate-limit-shared.js).
'use strict';
const autocannon = require('autocannon');
const { startDistributed } = require('./lib/distributed');
const { sleep, sampleZip, ADMIN_TOKEN } = require('./lib/standalone');

const N = Number(process.env.BENCH_LIMIT ?? 200);
const ACCURACY_S = Number(process.env.BENCH_ACCURACY_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

async function project(p, name, limits) {
  const made = await p.api('POST', `${p.gatewayUrls[0]}/admin/projects`, { headers: admin, body: { name, plan: 'pro' } });
  if (made.status !== 201) throw new Error(`create project: ${made.status} ${JSON.stringify(made.body)}`);
  const patched = await p.api('PATCH', `${p.gatewayUrls[0]}/admin/projects/${made.body.project_id}`, { headers: admin, body: { rate_limits: limits } });
  if (patched.status !== 200) throw new Error(`limits: ${patched.status} ${JSON.stringify(patched.body)}`);
  return made.body.server_key;
}

/** 2N requests per second for ACCURACY_S s, alternating the given gateways. */
async function accuracy(p, urls, key) {
  // Wait until both gateways show the key's limit (key lookups are cached 5 s), then let the bucket fill.
  for (const u of urls) {
    for (let i = 0; i < 100; i++) {
      const r = await p.api('GET', `${u}/v3/servers/${UNKNOWN}`, { key });
      if (r.headers.get('x-ratelimit-limit') === String(N)) break;
      await sleep(100);
    }
  }
  await sleep(1500);
  const answers = [];
  const started = Date.now();
  for (let i = 0; Date.now() - started < ACCURACY_S * 1000; i++) {
    answers.push(p.api('GET', `${urls[i % urls.length]}/v3/servers/${UNKNOWN}`, { key }));
    const due = started + ((i + 1) * 1000) / (2 * N);
    await sleep(Math.max(0, due - Date.now()));
  }
  const done = await Promise.all(answers);
  const elapsed = (Date.now() - started) / 1000;
  const allowed = done.filter((r) => r.status === 404).length;
  const refused = done.filter((r) => r.status === 429).length;
  const other = done.length - allowed - refused;
  return { sent: done.length, allowed, refused, other, elapsed, ratio: allowed / (N + N * elapsed) };
}

async function runningServer(p, key) {
  const g = p.gatewayUrls[0];
  const ticket = await p.api('POST', `${g}/v3/builds/upload-url?name=default`, { key });
  const put = await p.api('PUT', ticket.body.upload_url, { body: await sampleZip(), headers: { 'content-type': 'application/zip' } });
  if (put.status !== 200) throw new Error(`upload: ${put.status} ${JSON.stringify(put.body)}`);
  for (let i = 0; i < 300; i++) {
    if ((await p.api('GET', `${g}/v3/builds/${ticket.body.build_id}`, { key })).body.status === 'ready') break;
    await sleep(100);
  }
  const started = await p.api('POST', `${g}/v3/servers/start`, { key, body: { name: 'bench-rl', region: 'us-east' } });
  if (started.status !== 201) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  for (let i = 0; i < 300; i++) {
    if ((await p.api('GET', `${g}/v3/servers/${started.body.instance_id}`, { key })).body.status === 'running') return started.body.instance_id;
    await sleep(100);
  }
  throw new Error('bench server not running within 30 s');
}

async function throughput(url, key) {
  const headers = { 'api-key': key };
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 2 });
  await sleep(500);
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return { reqPerS: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts };
}

async function main() {
  const shared = {};
  const local = { SPAWNPOINT_RATE_LIMITS: 'local' };
  const p = await startDistributed({ gateways: [shared, shared, local, local] });
  try {
    const [s1, s2, l1, l2] = p.gatewayUrls;
    const accKeyShared = await project(p, 'accuracy shared', { read_per_second: N, write_per_second: 10, player_per_second: 10 });
    const accKeyLocal = await project(p, 'accuracy local', { read_per_second: N, write_per_second: 10, player_per_second: 10 });
    console.log(`# limit ${N}/s, ${2 * N}/s sent over two gateways for ${ACCURACY_S} s`);
    const a = await accuracy(p, [s1, s2], accKeyShared);
    console.log(`rate_limit_shared.accuracy.shared ${a.ratio.toFixed(3)}`);
    console.log(`# shared: ${a.sent} sent in ${a.elapsed.toFixed(2)} s, ${a.allowed} allowed, ${a.refused} refused, ${a.other} other; expected ${(N + N * a.elapsed).toFixed(0)}`);
    const b = await accuracy(p, [l1, l2], accKeyLocal);
    console.log(`rate_limit_shared.accuracy.local ${b.ratio.toFixed(3)}`);
    console.log(`# local: ${b.sent} sent in ${b.elapsed.toFixed(2)} s, ${b.allowed} allowed, ${b.refused} refused, ${b.other} other`);

    const key = await project(p, 'throughput', { read_per_second: 100_000, write_per_second: 100_000, player_per_second: 100_000 });
    const id = await runningServer(p, key);
    console.log(`# GET /v3/servers/{id}: ${CONNECTIONS} connections, 2 s warm-up + ${DURATION_S} s, ${ROUNDS} rounds each, alternating`);
    const runs = { shared: [], local: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, url] of [['shared', s1], ['local', l1]]) {
        const m = await throughput(`${url}/v3/servers/${id}`, key);
        runs[kind].push(m);
        console.log(`# round ${round + 1} ${kind}: ${m.reqPerS.toFixed(0)} req/s, p99 ${m.p99} ms, non-2xx ${m.non2xx}, errors ${m.errors}`);
      }
    }
    const best = (xs) => xs.reduce((x, y) => (y.reqPerS > x.reqPerS ? y : x));
    const bs = best(runs.shared);
    const bl = best(runs.local);
    console.log(`rate_limit_shared.get.shared_req_per_s ${bs.reqPerS.toFixed(0)}`);
    console.log(`rate_limit_shared.get.local_req_per_s ${bl.reqPerS.toFixed(0)}`);
    const ratio = bs.reqPerS / bl.reqPerS;
    console.log(`rate_limit_shared.get.ratio_shared_vs_local ${ratio.toFixed(3)}`);
    console.log(`rate_limit_shared.target.accuracy_within_5pct ${Math.abs(a.ratio - 1) <= 0.05 ? 'PASS' : 'MISS'}`);
    console.log(`rate_limit_shared.target.ratio_ge_0.9 ${ratio >= 0.9 ? 'PASS' : 'MISS'}`);
    console.log(`rate_limit_shared.target.all_2xx ${[...runs.shared, ...runs.local].every((m) => m.non2xx === 0 && m.errors === 0) ? 'PASS' : 'MISS'}`);
  } finally {
    await p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
