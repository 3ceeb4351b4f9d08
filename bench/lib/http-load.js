// One measured HTTP load run, as the GET benches take it: a warm-up run, a pause, then the measured run,
// with the target process's CPU time before and after (CPU µs per request, when its pid is given).
const autocannon = require('autocannon');
const { sleep, cpuSeconds } = require('./standalone');

const load = (url, headers, connections, duration) => autocannon({ url, headers, connections, duration, pipelining: 1 });

async function measureLoad({ url, headers = {}, pid = null, connections, warmupS, durationS, pauseMs }) {
  await load(url, headers, connections, warmupS);
  await sleep(pauseMs);
  const cpuBefore = pid ? cpuSeconds(pid) : 0;
  const r = await load(url, headers, connections, durationS);
  return {
    cpuUsPerReq: pid ? ((cpuSeconds(pid) - cpuBefore) * 1e6) / r.requests.total : null,
    reqPerS: r.requests.average,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

module.exports = { measureLoad };
