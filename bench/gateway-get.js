// GET throughput and latency through the gateway (GET /api/v3/servers/{id} on the standalone platform:
// auth, rate limit, bus request, read-model query) next to a bare Fastify "hello world" on the same
// machine, with the same autocannon settings. Both servers run as child processes; autocannon runs here.
// Needs the build: npm run build
// Usage: node bench/gateway-get.js   (BENCH_DURATION_S, BENCH_CONNECTIONS override the settings;
//        BENCH_AB=access-log compares the access log on and off instead of metrics, BENCH_AB=tracing tracing
//        at BENCH_TRACE_RATIO (0.1) exported to a local sink against tracing off)
'use strict';
const { spawn } = require('node:child_process');
const { startStandalone, startServer, freePort, sleep } = require('./lib/standalone');
const { measureLoad } = require('./lib/http-load');
const { startSpanSink } = require('./lib/span-sink');

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = 2;
const TARGET_RATIO = 0.25;
const TARGET_P99_MS = 25;
// One feature on against off: two platforms side by side, measured alternately, best of each. BENCH_AB picks it:
// `metrics` (METRICS_PORT a port, or off), `access-log` (on, the default, or SPAWNPOINT_ACCESS_LOG=false) or `tracing`
// (spans exported over OTLP/HTTP to a sink that discards them, a share of new traces sampled, or no exporter).
const METRICS_ROUNDS = Number(process.env.BENCH_METRICS_ROUNDS ?? 2);
const TARGET_METRICS_COST = 0.05;
const AB = {
  metrics: { label: 'metrics', off: async () => ({ METRICS_PORT: 'off' }), on: async () => ({ METRICS_PORT: String(await freePort()) }) },
  'access-log': { label: 'access_log', off: async () => ({ SPAWNPOINT_ACCESS_LOG: 'false' }), on: async () => ({}) },
  tracing: {
    label: `tracing_${Math.round(Number(process.env.BENCH_TRACE_RATIO ?? 0.1) * 100)}pct`,
    off: async () => ({}),
    on: async () => {
      spanSink = await startSpanSink();
      return { OTEL_EXPORTER_OTLP_ENDPOINT: spanSink.url, SPAWNPOINT_TRACE_SAMPLE_RATIO: String(process.env.BENCH_TRACE_RATIO ?? 0.1) };
    },
  },
}[process.env.BENCH_AB ?? 'metrics'];
if (!AB) throw new Error(`BENCH_AB must be metrics, access-log or tracing (got ${process.env.BENCH_AB})`);
/** BENCH_AB=tracing: where the traced platform exports (started with it). */
let spanSink = null;

// The bare app, in its own process like the platform (so autocannon does not share its event loop).
const BARE_APP = `
const app = require('fastify')();
app.get('/hello', async () => ({ hello: 'world' }));
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).then(() => console.log('listening'));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

async function startBare() {
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', BARE_APP], { cwd: __dirname, env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // Interrupted (Ctrl-C, run-all's timeout): take the bare app down too.
  const onSignal = () => { child.kill('SIGKILL'); process.exit(130); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('bare fastify did not start within 10 s')), 10_000);
    child.stdout.on('data', (d) => { if (String(d).includes('listening')) { clearTimeout(t); resolve(); } });
    child.once('exit', (code) => reject(new Error(`bare fastify exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}/hello`,
    async stop() {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    },
  };
}

/**
 * A warm-up run, a short pause, then the measured run. With `pid`, also the CPU the server process spent per
 * request: unlike req/s it hardly moves when something else on the machine takes a core.
 */
const measure = (url, headers = {}, pid = null) => measureLoad({ url, headers, pid, connections: CONNECTIONS, warmupS: WARMUP_S, durationS: DURATION_S, pauseMs: 500 });

function print(prefix, m) {
  console.log(`${prefix}.req_per_s ${m.reqPerS.toFixed(0)}`);
  console.log(`${prefix}.p50_ms ${m.p50.toFixed(2)}`);
  console.log(`${prefix}.p99_ms ${m.p99.toFixed(2)}`);
  console.log(`${prefix}.requests ${m.total}`);
  console.log(`${prefix}.non2xx ${m.non2xx}`);
  console.log(`${prefix}.errors ${m.errors + m.timeouts}`);
}

async function main() {
  console.log(`# ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s measured, each target`);
  let bare = null;
  let platform = null;
  let metered = null;
  try {
    bare = await startBare();
    const b = await measure(bare.url);
    await bare.stop();
    bare = null;

    // The GET with the feature off, and on (metrics: the gateway's RED hook, bus and append metrics; access log:
    // a line per request on stdout): both platforms up side by side, measured alternately (order swapped each round), best of each.
    platform = await startStandalone({ env: await AB.off() });
    const server = await startServer(platform, 'bench-get');
    metered = await startStandalone({ portRange: '19500-19999', env: await AB.on() });
    const meteredServer = await startServer(metered, 'bench-get-metrics');
    const getOff = () => measure(`${platform.baseUrl}/v3/servers/${server.instance_id}`, { 'api-key': platform.serverKey }, platform.pid);
    const getOn = () => measure(`${metered.baseUrl}/v3/servers/${meteredServer.instance_id}`, { 'api-key': metered.serverKey }, metered.pid);
    const off = [];
    const on = [];
    for (let round = 0; round < METRICS_ROUNDS; round++) {
      if (round % 2 === 0) { off.push(await getOff()); on.push(await getOn()); } else { on.push(await getOn()); off.push(await getOff()); }
    }
    await platform.api('DELETE', `/v3/servers/${server.instance_id}`, { key: platform.serverKey });
    await metered.api('DELETE', `/v3/servers/${meteredServer.instance_id}`, { key: metered.serverKey });
    const best = (runs) => runs.reduce((a, b) => (b.reqPerS > a.reqPerS ? b : a));
    const g = best(off);

    print('bare_fastify', b);
    print('gateway_get', g);
    const ratio = g.reqPerS / b.reqPerS;
    console.log(`gateway_get.ratio_vs_bare ${ratio.toFixed(3)}`);
    const ratioOk = ratio >= TARGET_RATIO;
    const p99Ok = g.p99 < TARGET_P99_MS;
    const okOk = g.non2xx === 0 && g.errors === 0 && g.timeouts === 0;
    console.log(`gateway_get.target.ratio_ge_${TARGET_RATIO} ${ratioOk ? 'PASS' : 'MISS'}`);
    console.log(`gateway_get.target.p99_lt_${TARGET_P99_MS}ms ${p99Ok ? 'PASS' : 'MISS'}`);
    console.log(`gateway_get.target.all_200 ${okOk ? 'PASS' : 'MISS'}`);
    const [bestOff, bestOn] = [best(off), best(on)];
    const ab = AB.label;
    print(`gateway_get_${ab}_on`, bestOn);
    const metricsRatio = bestOn.reqPerS / bestOff.reqPerS;
    console.log(`gateway_get.${ab}_on_vs_off ${metricsRatio.toFixed(3)}`);
    console.log(`gateway_get.target.${ab}_cost_lt_${TARGET_METRICS_COST * 100}pct ${metricsRatio > 1 - TARGET_METRICS_COST ? 'PASS' : 'MISS'}`);
    // The same cost as CPU per request (lowest of each side): what the feature adds to the gateway's own work.
    const cpuOff = Math.min(...off.map((m) => m.cpuUsPerReq));
    const cpuOn = Math.min(...on.map((m) => m.cpuUsPerReq));
    console.log(`gateway_get.cpu_us_per_req_${ab}_off ${cpuOff.toFixed(1)}`);
    console.log(`gateway_get.cpu_us_per_req_${ab}_on ${cpuOn.toFixed(1)}`);
    console.log(`gateway_get.${ab}_cpu_cost ${(cpuOn / cpuOff - 1).toFixed(3)}`);
    console.log(`# ${ab} on vs off (best of ${on.length} / ${off.length}): ${bestOn.reqPerS.toFixed(0)} / ${bestOff.reqPerS.toFixed(0)} req/s ` +
      `(runs on ${on.map((m) => m.reqPerS.toFixed(0)).join(', ')}; off ${off.map((m) => m.reqPerS.toFixed(0)).join(', ')}), p99 ${bestOn.p99} / ${bestOff.p99} ms`);
    if (spanSink) {
      await sleep(6000); // the exporter's batch delay (5 s): the last spans arrive
      const sunk = await spanSink.stats();
      console.log(`gateway_get.${ab}_exports ${sunk.requests}`);
      console.log(`# spans exported to the sink: ${sunk.requests} OTLP requests, ${(sunk.bytes / 1e6).toFixed(1)} MB`);
    }
    console.log(`# bare Fastify ${b.reqPerS.toFixed(0)} req/s (p99 ${b.p99} ms); gateway GET ${g.reqPerS.toFixed(0)} req/s (p50 ${g.p50} ms, p99 ${g.p99} ms), ` +
      `${(ratio * 100).toFixed(1)}% of bare; non-2xx ${g.non2xx}, errors ${g.errors + g.timeouts}`);
  } finally {
    await bare?.stop();
    await platform?.stop();
    await metered?.stop();
    await spanSink?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
