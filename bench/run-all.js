// Runs every bench/*.js (except this file and bench/lib/) one after another as child processes,
// streams their output, and ends with a summary of every `metric value` line.
// Usage: node bench/run-all.js [name-filter...]   (npm run bench builds first)
'use strict';
const { spawn } = require('node:child_process');
const { readdirSync } = require('node:fs');
const path = require('node:path');

const SELF = path.basename(__filename);
const METRIC = /^([A-Za-z0-9_.-]+)\s+(\S+)\s*$/;
const PER_SCRIPT_TIMEOUT_MS = 5 * 60_000;
// Scripts that need longer: lobby-streams sets up 10,000 players and opens 10,000 event streams first.
const TIMEOUT_MS = { 'lobby-streams.js': 8 * 60_000 };

function runScript(file) {
  return new Promise((resolve) => {
    const metrics = [];
    let buffered = '';
    const child = spawn(process.execPath, [path.join(__dirname, file)], { cwd: path.join(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] });
    const timeoutMs = TIMEOUT_MS[file] ?? PER_SCRIPT_TIMEOUT_MS;
    const timer = setTimeout(() => {
      console.error(`[run-all] ${file} exceeded ${timeoutMs / 1000} s; sending SIGTERM`);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        const m = METRIC.exec(line);
        if (m) metrics.push([m[1], m[2]]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const m = METRIC.exec(buffered);
      if (m) metrics.push([m[1], m[2]]);
      resolve({ file, code, signal, metrics });
    });
  });
}

async function main() {
  const filters = process.argv.slice(2);
  const scripts = readdirSync(__dirname)
    .filter((f) => f.endsWith('.js') && f !== SELF)
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
  const results = [];
  for (const file of scripts) {
    console.log(`\n=== ${file} ===`);
    const started = Date.now();
    const r = await runScript(file);
    r.seconds = (Date.now() - started) / 1000;
    console.log(`=== ${file}: ${r.code === 0 ? 'ok' : `FAILED (${r.signal ?? `exit ${r.code}`})`} in ${r.seconds.toFixed(1)} s ===`);
    results.push(r);
  }

  console.log('\n=== summary ===');
  const width = Math.max(0, ...results.flatMap((r) => r.metrics.map(([k]) => k.length)));
  for (const r of results) {
    console.log(`# ${r.file} (${r.code === 0 ? 'ok' : 'FAILED'}, ${r.seconds.toFixed(1)} s)`);
    for (const [k, v] of r.metrics) console.log(`${k.padEnd(width)}  ${v}`);
  }
  const misses = results.flatMap((r) => r.metrics.filter(([, v]) => v === 'MISS').map(([k]) => k));
  const failed = results.filter((r) => r.code !== 0).map((r) => r.file);
  console.log(`# ${results.length} benches, ${failed.length} failed${failed.length ? ` (${failed.join(', ')})` : ''}; ` +
    `${misses.length} target(s) missed${misses.length ? ` (${misses.join(', ')})` : ''}`);
  if (failed.length) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
