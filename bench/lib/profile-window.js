// Reads a V8 CPU profile (.cpuprofile, from BENCH_PROFILE_DIR) and reports one time window of it: the
// self time per function, and the stalls (runs of busy samples, no idle between them, longer than
// STALL_MS) with what each spent its time in. The window is in the monotonic clock's microseconds, as the
// benches print it (`# drive from monotonic … us` / `# drive until monotonic … us`).
// Usage: node bench/lib/profile-window.js <file.cpuprofile> [fromUs untilUs] [STALL_MS=20]
'use strict';
const { readFileSync } = require('node:fs');

const [file, fromArg, untilArg, stallArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/lib/profile-window.js <file.cpuprofile> [fromUs untilUs] [stallMs]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const from = fromArg ? Number(fromArg) : profile.startTime;
const until = untilArg ? Number(untilArg) : profile.endTime;
const stallUs = Number(stallArg ?? 20) * 1000;

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*\/(node_modules|apps|libs)\//, '$1/')}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
const IDLE = new Set(['(idle)']);
const isIdle = (n) => IDLE.has(n.callFrame.functionName);

// Sample times: startTime + cumulative timeDeltas; each sample lasts until the next one.
const samples = [];
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i];
  samples.push({ at: t, node: nodes.get(profile.samples[i]) });
}
for (let i = 0; i < samples.length; i++) samples[i].dur = i + 1 < samples.length ? samples[i + 1].at - samples[i].at : 0;
const inWindow = samples.filter((s) => s.at >= from && s.at < until);

function selfTimes(list) {
  const by = new Map();
  for (const s of list) by.set(label(s.node), (by.get(label(s.node)) ?? 0) + s.dur);
  return [...by].sort((a, b) => b[1] - a[1]);
}

/** The outermost frame below the root that is not a Node internal: what started the work. */
function origin(node) {
  const chain = [];
  for (let id = node.id; id !== undefined; id = parent.get(id)) chain.push(nodes.get(id));
  const user = chain.reverse().filter((n) => n.callFrame.url && !n.callFrame.url.startsWith('node:'));
  return user.length ? label(user[0]) : label(chain[Math.min(1, chain.length - 1)]);
}

const total = inWindow.reduce((a, s) => a + s.dur, 0);
const busy = inWindow.filter((s) => !isIdle(s.node)).reduce((a, s) => a + s.dur, 0);
console.log(`window ${((until - from) / 1000).toFixed(0)} ms; sampled ${(total / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (${((busy / Math.max(1, total)) * 100).toFixed(0)} %)`);
console.log('\nself time, top 25:');
for (const [name, us] of selfTimes(inWindow.filter((s) => !isIdle(s.node))).slice(0, 25)) console.log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${name}`);

const stalls = [];
let run = [];
for (const s of inWindow) {
  if (isIdle(s.node)) {
    if (run.length) stalls.push(run);
    run = [];
  } else run.push(s);
}
if (run.length) stalls.push(run);
const long = stalls.map((r) => ({ r, us: r.reduce((a, s) => a + s.dur, 0) })).filter((x) => x.us >= stallUs).sort((a, b) => b.us - a.us);
console.log(`\nstalls ≥ ${stallUs / 1000} ms: ${long.length}, ${(long.reduce((a, x) => a + x.us, 0) / 1000).toFixed(0)} ms in all`);
for (const { r, us } of long.slice(0, 15)) {
  const origins = new Map();
  for (const s of r) origins.set(origin(s.node), (origins.get(origin(s.node)) ?? 0) + s.dur);
  const top = [...origins].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([n, u]) => `${n} ${(u / 1000).toFixed(0)} ms`).join('; ');
  const self = selfTimes(r).slice(0, 3).map(([n, u]) => `${n} ${(u / 1000).toFixed(0)} ms`).join('; ');
  console.log(`  ${(us / 1000).toFixed(0).padStart(5)} ms at +${((r[0].at - from) / 1000).toFixed(0)} ms\n      from: ${top}\n      self: ${self}`);
}
