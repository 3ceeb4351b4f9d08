// Append latency and throughput of the PostgreSQL event store, on a fresh database it drops afterwards.
// Needs the built library: npx tsc -p libs/eventstore/tsconfig.json
// Usage: node bench/eventstore-append.js   (TEST_DATABASE_ADMIN_URL overrides the server)
'use strict';
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');
const { PostgresEventStore } = require('@spawnpoint/eventstore');

const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SEQUENTIAL_APPENDS = 2000;
const WRITERS = 16;
const THROUGHPUT_MS = 5000;

async function admin(sql) {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const event = (i) => ({ type: 'BenchAppended', data: { i, payload: 'x'.repeat(200) }, metadata: { correlationId: `c${i}` } });

async function singleAppendLatency(store) {
  const stream = 'bench-sequential';
  const latencies = [];
  for (let i = 0; i < SEQUENTIAL_APPENDS; i++) {
    const started = process.hrtime.bigint();
    await store.appendToStream(stream, [event(i)], i === 0 ? 'no_stream' : i - 1);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function concurrentThroughput(store) {
  const deadline = Date.now() + THROUGHPUT_MS;
  const started = process.hrtime.bigint();
  const counts = await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const stream = `benchwriter-${w}`;
      let n = 0;
      while (Date.now() < deadline) {
        await store.appendToStream(stream, [event(n)], n === 0 ? 'no_stream' : n - 1);
        n++;
      }
      return n;
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return counts.reduce((a, b) => a + b, 0) / seconds;
}

async function main() {
  const name = `sp_bench_${randomBytes(6).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const store = new PostgresEventStore({ connectionString: url.toString(), poolSize: WRITERS });
  try {
    await store.migrate();
    const latency = await singleAppendLatency(store);
    console.log(`eventstore.single_append.p50_ms ${latency.p50.toFixed(2)}`);
    console.log(`eventstore.single_append.p99_ms ${latency.p99.toFixed(2)}`);
    const throughput = await concurrentThroughput(store);
    console.log(`eventstore.concurrent_append.writers ${WRITERS}`);
    console.log(`eventstore.concurrent_append.appends_per_s ${throughput.toFixed(0)}`);
  } finally {
    await store.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
