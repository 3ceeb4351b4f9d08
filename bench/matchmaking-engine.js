// The matching step (libs/domain/src/matchmaking/engine.ts, pure) over a whole queue: 10,000 and 100,000
// queued lobbies, 1v1 and 5v5 (solo players and parties of 2), ratings spread over 0–3000, queued over
// the last 60 s, a difference rule of base 100 growing by 100 every 2 s. Prints the time of one full step
// (every ticket considered: the re-scan case) and the tickets matched per second; heap per queued ticket
// is measured around building the queue. Needs the build (npm run build).
// Usage: node --expose-gc bench/matchmaking-engine.js   (BENCH_SIZES=10000,100000 overrides)
'use strict';
const { formMatches, resolveMode } = require('../libs/domain/dist');

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const NOW = Date.parse('2026-11-24T10:01:00.000Z');
const rule = { type: 'difference', field: 'mmr', maxDifference: 100, expandEvery: 2, expandBy: 100 };
const MODES = {
  '1v1': resolveMode('1v1', { teams: 2, playersPerTeam: 1, rules: [rule] }),
  '5v5': resolveMode('5v5', { teams: 2, playersPerTeam: 5, rules: [rule] }),
};

// A small deterministic generator, so both sides of an A/B see the same queue.
function rng(seed) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

function queue(size, party) {
  const r = rng(size + party);
  return Array.from({ length: size }, (_, i) => {
    const players = Array.from({ length: party === 2 && r() < 0.3 ? 2 : 1 }, (_, p) => ({ id: `l${i}-p${p}`, state: { mmr: Math.round(r() * 3000) } }));
    return { lobbyId: `l${i}`, ticket: 1, region: 'eu-west', queuedAt: new Date(NOW - Math.floor(r() * 60_000)).toISOString(), players };
  });
}

const heapUsed = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed;
};

const ids = (lobbies) => `m-${lobbies[0].lobbyId}`;
for (const [name, mode] of Object.entries(MODES)) {
  for (const size of SIZES) {
    const before = heapUsed();
    const q = queue(size, name === '5v5' ? 2 : 1);
    const perTicket = (heapUsed() - before) / size;
    formMatches({ projectId: 'p', config: 'c' }, mode, q.slice(0, 1000), new Date(NOW).toISOString(), ids); // warm-up
    const runs = [];
    let matched = 0;
    for (let k = 0; k < 5; k++) {
      const t = process.hrtime.bigint();
      const ms = formMatches({ projectId: 'p', config: 'c' }, mode, q, new Date(NOW).toISOString(), ids);
      runs.push(Number(process.hrtime.bigint() - t) / 1e6);
      matched = ms.reduce((n, m) => n + m.lobbies.length, 0);
    }
    runs.sort((a, b) => a - b);
    const median = runs[2];
    const key = `matchmaking_engine.${name}_${size}`;
    console.log(`${key}.full_step_ms ${median.toFixed(1)}`);
    console.log(`${key}.lobbies_matched ${matched}`);
    console.log(`${key}.tickets_per_s ${Math.round(size / (median / 1000))}`);
    if (global.gc) console.log(`${key}.queue_bytes_per_ticket ${Math.round(perTicket)}`);
    if (size === 100000) console.log(`${key}.target.full_step_lt_150ms ${median < 150 ? 'PASS' : 'MISS'}`);
  }
}
