// Preloaded into the platform process by benches (node -r bench/lib/memory-probe.js, with --expose-gc):
// on SIGWINCH (not SIGUSR2: Nest's enableShutdownHooks() treats that as a shutdown signal) it runs a full GC (when exposed) and prints one line `BENCH_MEMORY {json}` with
// process.memoryUsage() and V8 heap space sizes (taken before the snapshot, if any). Bench-only; the product never loads it.
'use strict';
const v8 = require('node:v8');

process.on('SIGWINCH', () => {
  if (typeof global.gc === 'function') { global.gc(); global.gc(); }
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  let handles = null;
  try { handles = process.getActiveResourcesInfo().length; } catch { /* older Node */ }
  // BENCH_HEAP_SNAPSHOT_DIR (set by the bench): also write a heap snapshot there, for a per-type breakdown.
  const snapshot = process.env.BENCH_HEAP_SNAPSHOT_DIR ? v8.writeHeapSnapshot(require('node:path').join(process.env.BENCH_HEAP_SNAPSHOT_DIR, `${Date.now()}.heapsnapshot`)) : null;
  process.stdout.write(`BENCH_MEMORY ${JSON.stringify({ ...m, spaces, handles, snapshot })}\n`);
});
