// Gateway GET, this checkout's build against another's (BENCH_BASE_ROOT: a built checkout, e.g. a git
// worktree of the commit before a change), both platforms up side by side and measured alternately, the
// order swapped each round, so the machine's drift falls on both. Prints each round's req/s and the
// platform's CPU µs per request, then the medians and main's change against base.
//   BENCH_BASE_ROOT=/work/ab/base node bench/ab-gateway-get.js
// BENCH_ROUNDS (6), BENCH_DURATION_S (5), BENCH_CONNECTIONS (100) override; BENCH_PLATFORM_ENV applies to both.
const { startStandalone, startServer } = require('./lib/standalone');
const { measureLoad } = require('./lib/http-load');

const BASE_ROOT = process.env.BENCH_BASE_ROOT;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(side) {
  const r = await measureLoad({ url: side.url, headers: side.headers, pid: side.p.pid, connections: CONNECTIONS, warmupS: 1, durationS: DURATION_S, pauseMs: 300 });
  if (r.non2xx || r.errors || r.timeouts) throw new Error(`${side.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  return { reqPerS: r.reqPerS, cpuUs: r.cpuUsPerReq, p99: r.p99 };
}

async function side(name, root, portRange) {
  const p = await startStandalone({ root, portRange });
  const server = await startServer(p, `ab-${name}`);
  return { name, p, server, url: `${p.baseUrl}/v3/servers/${server.instance_id}`, headers: { 'api-key': p.serverKey }, runs: [] };
}

async function main() {
  if (!BASE_ROOT) {
    // run-all runs every script: without a base there is nothing to compare, which is not a failure.
    console.log('# BENCH_BASE_ROOT not set (a built checkout to compare with: git worktree add ../base <commit>, npm install, npm run build): skipped');
    return;
  }
  const sides = [];
  try {
    sides.push(await side('main', undefined, '19000-19499'));
    sides.push(await side('base', BASE_ROOT, '19500-19999'));
    console.log(`# ${ROUNDS} rounds of ${DURATION_S} s each side, ${CONNECTIONS} connections; base ${BASE_ROOT}`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
        const m = await measure(s);
        s.runs.push(m);
        console.log(`# round ${round + 1} ${s.name}: ${m.reqPerS.toFixed(0)} req/s, ${m.cpuUs.toFixed(1)} µs CPU per request, p99 ${m.p99} ms`);
      }
    }
    const [m, b] = sides.map((s) => ({ rps: median(s.runs.map((r) => r.reqPerS)), cpu: median(s.runs.map((r) => r.cpuUs)) }));
    console.log(`ab_gateway_get.main.req_per_s ${m.rps.toFixed(0)}`);
    console.log(`ab_gateway_get.base.req_per_s ${b.rps.toFixed(0)}`);
    console.log(`ab_gateway_get.main.cpu_us_per_req ${m.cpu.toFixed(1)}`);
    console.log(`ab_gateway_get.base.cpu_us_per_req ${b.cpu.toFixed(1)}`);
    console.log(`ab_gateway_get.req_per_s_change ${(m.rps / b.rps - 1).toFixed(3)}`);
    console.log(`ab_gateway_get.cpu_per_req_change ${(m.cpu / b.cpu - 1).toFixed(3)}`);
    console.log(`ab_gateway_get.target.req_per_s_within_10pct ${m.rps / b.rps >= 0.9 ? 'PASS' : 'MISS'}`);
  } finally {
    for (const s of sides) await s.p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
