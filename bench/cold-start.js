// Cold start of a game server on the standalone platform (process runtime): sequential
// POST /api/v3/servers/start → poll GET every 10 ms until running → DELETE, one server at a time.
// Elapsed = from sending the start request to the GET response that shows `running`.
// Needs the build: npm run build
// Usage: node bench/cold-start.js   (BENCH_COLD_STARTS overrides the count)
'use strict';
const { startStandalone, percentile, sleep } = require('./lib/standalone');

const STARTS = Number(process.env.BENCH_COLD_STARTS ?? 30);
const POLL_MS = 10;
const RUNNING_TIMEOUT_MS = 15_000;
const TARGET_P50_MS = 1000;

const ms = (from) => Number(process.hrtime.bigint() - from) / 1e6;

async function coldStart(p, i) {
  const sent = process.hrtime.bigint();
  const started = await p.api('POST', '/v3/servers/start', { key: p.serverKey, body: { name: `cold-${i}`, region: 'us-east' } });
  const startMs = ms(sent);
  if (started.status !== 201) throw new Error(`start #${i}: ${started.status} ${JSON.stringify(started.body)}`);
  const id = started.body.instance_id;
  let polls = 0;
  let runningMs = null;
  while (ms(sent) < RUNNING_TIMEOUT_MS) {
    const r = await p.api('GET', `/v3/servers/${id}`, { key: p.serverKey });
    polls++;
    if (r.body.status === 'running') { runningMs = ms(sent); break; }
    if (r.body.status === 'stopped') throw new Error(`server #${i} stopped before running: ${JSON.stringify(r.body)}`);
    await sleep(POLL_MS);
  }
  const stopped = await p.api('DELETE', `/v3/servers/${id}`, { key: p.serverKey });
  if (stopped.status !== 200) throw new Error(`stop #${i}: ${stopped.status} ${JSON.stringify(stopped.body)}`);
  if (runningMs === null) throw new Error(`server #${i} not running within ${RUNNING_TIMEOUT_MS} ms`);
  return { startMs, runningMs, polls };
}

async function main() {
  const p = await startStandalone();
  try {
    await coldStart(p, 'warmup'); // first start pays for JIT and connection warm-up; not counted
    const runs = [];
    for (let i = 0; i < STARTS; i++) runs.push(await coldStart(p, i));
    const running = runs.map((r) => r.runningMs).sort((a, b) => a - b);
    const start = runs.map((r) => r.startMs).sort((a, b) => a - b);
    console.log(`cold_start.count ${runs.length}`);
    console.log(`cold_start.p50_ms ${percentile(running, 50).toFixed(1)}`);
    console.log(`cold_start.p90_ms ${percentile(running, 90).toFixed(1)}`);
    console.log(`cold_start.p99_ms ${percentile(running, 99).toFixed(1)}`);
    console.log(`cold_start.max_ms ${running[running.length - 1].toFixed(1)}`);
    console.log(`cold_start.start_request.p50_ms ${percentile(start, 50).toFixed(1)}`);
    console.log(`cold_start.start_request.p99_ms ${percentile(start, 99).toFixed(1)}`);
    const ok = percentile(running, 50) < TARGET_P50_MS;
    console.log(`cold_start.target.p50_lt_${TARGET_P50_MS}ms ${ok ? 'PASS' : 'MISS'}`);
    const polls = runs.reduce((a, r) => a + r.polls, 0) / runs.length;
    console.log(`# ${runs.length} sequential starts: start→running p50 ${percentile(running, 50).toFixed(0)} ms, max ${running[running.length - 1].toFixed(0)} ms; ` +
      `the 201 itself p50 ${percentile(start, 50).toFixed(0)} ms; ${polls.toFixed(1)} polls per start`);
  } finally {
    await p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
