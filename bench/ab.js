// A/B of whole benches across two builds, interleaved: each named bench runs BENCH_AB_ROUNDS (2) times on
// this checkout's build and as often on BENCH_BASE_ROOT's (a built checkout of another commit; the bench
// code is this checkout's, the platform under test is the one BENCH_ROOT names), alternating and swapping
// the order each round so the VM's drift falls on both. Prints every round's figures, then per metric the
// median of each side and main's change against base.
// Usage: BENCH_BASE_ROOT=/path/to/base node bench/ab.js pool-claim lobby-join cold-start
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');

const NAME = /^[A-Za-z0-9_.-]+$/;
const NUMBER = /^-?[0-9.]+$/;

/**
 * The figures of one output line: `name 12` → name; `name 12 (note)` → name; `name p50 3 p99 9 max 12 (…)`
 * → name.p50, name.p99, name.max (words each followed by a number, up to a parenthesis).
 */
function figures(line) {
  const tokens = line.trim().split(/\s+/);
  const [name, ...rest] = tokens;
  if (!name || !NAME.test(name) || name.startsWith('#') || rest.length === 0) return [];
  const out = [];
  if (NUMBER.test(rest[0])) out.push([name, Number(rest[0])]);
  for (let i = 0; i + 1 < rest.length && !rest[i].startsWith('('); i++) {
    if (!NUMBER.test(rest[i]) && NUMBER.test(rest[i + 1])) out.push([`${name}.${rest[i]}`, Number(rest[i + 1])]);
  }
  return out;
}
const base = process.env.BENCH_BASE_ROOT;
const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 2);

function run(script, root) {
  return new Promise((resolve) => {
    const metrics = new Map();
    let out = '';
    const env = { ...process.env, ...(root ? { BENCH_ROOT: root } : {}) };
    delete env.BENCH_BASE_ROOT;
    const child = spawn(process.execPath, [path.join(__dirname, `${script}.js`)], { cwd: path.join(__dirname, '..'), env, stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (c) => { out += c; });
    child.once('exit', (code) => {
      for (const line of out.split('\n')) for (const [name, value] of figures(line)) metrics.set(name, value);
      resolve({ code, metrics });
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const scripts = process.argv.slice(2);
  if (!base) {
    console.log('# ab: BENCH_BASE_ROOT is not set; skipped');
    return;
  }
  if (scripts.length === 0) throw new Error('name the benches to compare, e.g. node bench/ab.js pool-claim lobby-join');
  for (const script of scripts) {
    const seen = { base: [], main: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['base', 'main'] : ['main', 'base'];
      for (const side of order) {
        const r = await run(script, side === 'base' ? base : undefined);
        console.log(`# ${script} round ${round + 1} ${side}: exit ${r.code}; ${[...r.metrics].map(([k, v]) => `${k}=${v}`).join(' ')}`);
        seen[side].push(r.metrics);
      }
    }
    const names = [...new Set(seen.main.flatMap((m) => [...m.keys()]))].filter((n) => !n.includes('.target.'));
    for (const name of names) {
      const b = seen.base.map((m) => m.get(name)).filter((v) => v !== undefined);
      const m = seen.main.map((x) => x.get(name)).filter((v) => v !== undefined);
      if (b.length === 0 || m.length === 0) continue;
      const [mb, mm] = [median(b), median(m)];
      const change = mb === 0 ? 'n/a' : `${(((mm - mb) / Math.abs(mb)) * 100).toFixed(1)}%`;
      console.log(`ab.${name}.base ${mb}\nab.${name}.main ${mm}\n# ab ${name}: base ${mb}, main ${mm} (${change})`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
