// Log histogram latency: 1,000,000 log lines of one server over 24 h on a throwaway database, their
// per-minute rollup (log_minutes, as the LogWriter keeps it), then the real histogram function of the built
// servers app (24 h window, step 60: read from the rollup) timed end to end through Prisma, and for
// comparison the same window counted from every line (queryRawHistogram, the path without the rollup).
// Needs the build: npm run build
// Usage: node bench/log-histogram.js   (TEST_DATABASE_ADMIN_URL overrides the server; BENCH_HISTOGRAM_RUNS the count)
'use strict';
const { randomBytes, randomUUID } = require('node:crypto');
const path = require('node:path');
const { Client } = require('pg');
const { createReadModels, migrateReadModels } = require('@spawnpoint/read-models');

const DIST = path.join(__dirname, '..', 'apps', 'servers', 'dist', 'logs');
const { queryLogHistogram, queryRawHistogram } = require(path.join(DIST, 'log-queries.js'));
const { checkHistogramQuery } = require(path.join(DIST, 'log-window.js'));

const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const LINES = 1_000_000;
const RUNS = Number(process.env.BENCH_HISTOGRAM_RUNS || 20);
const TARGET_P50_MS = 300;

async function sql(url, text, values) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** One server's lines, evenly over the 24 h before `now`: 90 % info, 7 % warn, 3 % error; 1 in 50 mentions a disconnect. */
async function insertLines(url, serverId, now) {
  await sql(url, `
    INSERT INTO log_lines (server_id, project_id, ts, level, stream, message)
    SELECT $1::uuid, 'bench', $2::timestamptz - interval '24 hours' + (i * (interval '24 hours' / $3::int)),
           CASE WHEN i % 100 < 3 THEN 'error' WHEN i % 100 < 10 THEN 'warn' ELSE 'info' END,
           CASE WHEN i % 100 < 3 THEN 'stderr' ELSE 'stdout' END,
           'tick ' || i || ': player ' || (i % 977) || CASE WHEN i % 50 = 0 THEN ' Disconnected (timeout)' ELSE ' moved to sector ' || (i % 64) END
    FROM generate_series(0, $3::int - 1) AS i`, [serverId, now.toISOString(), LINES]);
}

/** The per-minute counts of the lines, as the LogWriter adds them batch by batch (one statement here). */
async function fillRollup(url) {
  await sql(url, `
    INSERT INTO log_minutes (server_id, minute, info, warn, error)
    SELECT server_id, date_bin(interval '1 minute', ts, timestamptz '1970-01-01T00:00:00Z'),
           count(*) FILTER (WHERE level <> 'warn' AND level <> 'error')::int,
           count(*) FILTER (WHERE level = 'warn')::int,
           count(*) FILTER (WHERE level = 'error')::int
    FROM log_lines
    GROUP BY 1, 2`);
}

async function time(fn) {
  const started = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
}

/** RUNS timed calls after one uncounted warm-up (the first read after a bulk insert also sets hint bits). */
async function measure(histogram) {
  await histogram();
  const latencies = [];
  for (let i = 0; i < RUNS; i++) latencies.push((await time(histogram)).ms);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main() {
  const name = `sp_bench_${randomBytes(6).toString('hex')}`;
  await sql(ADMIN_URL, `CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const db = createReadModels(url.toString(), 2);
  try {
    await migrateReadModels(url.toString());
    const serverId = randomUUID();
    const now = new Date();
    const inserted = await time(() => insertLines(url.toString(), serverId, now));
    const rolled = await time(() => fillRollup(url.toString()));
    await sql(url.toString(), 'ANALYZE log_lines, log_minutes');
    console.log(`log_histogram.lines ${LINES}`);
    console.log(`log_histogram.insert_s ${(inserted.ms / 1000).toFixed(1)}`);
    console.log(`log_histogram.rollup_fill_s ${(rolled.ms / 1000).toFixed(1)}`);

    const day = checkHistogramQuery({ start_time: '-24h', step: 60 }, now);
    const histogram = () => queryLogHistogram(db, serverId, day);
    const raw = () => queryRawHistogram(db, serverId, day);
    // The measured call must do the real work: every line counted, one bucket per minute, the same
    // buckets as counting every line.
    const { result } = await time(histogram);
    const counted = result.buckets.reduce((n, b) => n + b.info + b.warn + b.error, 0);
    if (counted !== LINES || result.buckets.length < 1440) throw new Error(`histogram counted ${counted} lines in ${result.buckets.length} buckets`);
    if (JSON.stringify(result) !== JSON.stringify(await raw())) throw new Error('rollup and raw histograms differ');
    console.log(`log_histogram.buckets ${result.buckets.length}`);

    const fresh = await measure(histogram);
    console.log(`log_histogram.p50_ms ${fresh.p50.toFixed(1)}`);
    console.log(`log_histogram.p99_ms ${fresh.p99.toFixed(1)}`);
    const rawFresh = await measure(raw);
    console.log(`log_histogram.raw.p50_ms ${rawFresh.p50.toFixed(1)}`);
    console.log(`log_histogram.raw.p99_ms ${rawFresh.p99.toFixed(1)}`);
    const searched = await time(() => queryLogHistogram(db, serverId, checkHistogramQuery({ start_time: '-24h', step: 60, search: 'DISCONNECTED' }, now)));
    console.log(`log_histogram.search_ms ${searched.ms.toFixed(1)}`);

    // Autovacuum visits insert-only tables too; once pages are all-visible the per-bin counts are index-only.
    await sql(url.toString(), 'VACUUM ANALYZE log_lines, log_minutes');
    const visible = await measure(histogram);
    console.log(`log_histogram.all_visible.p50_ms ${visible.p50.toFixed(1)}`);
    console.log(`log_histogram.all_visible.p99_ms ${visible.p99.toFixed(1)}`);
    const rawVisible = await measure(raw);
    console.log(`log_histogram.raw.all_visible.p50_ms ${rawVisible.p50.toFixed(1)}`);
    console.log(`log_histogram.target.p50_under_${TARGET_P50_MS}ms ${fresh.p50 < TARGET_P50_MS ? 'PASS' : 'MISS'}`);
    console.log(`# ${LINES} lines over 24 h, step 60, ${RUNS} runs: p50 ${fresh.p50.toFixed(0)} ms after ANALYZE, ${visible.p50.toFixed(0)} ms after VACUUM`
      + ` (counting every line: ${rawFresh.p50.toFixed(0)} / ${rawVisible.p50.toFixed(0)} ms)`);
  } finally {
    await db.$disconnect();
    await sql(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
