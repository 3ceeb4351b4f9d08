// Which store for the gateways' shared rate limits (ADR-0008): the round trip of one lease on PostgreSQL
// (rate_limit_lease(), migration 0009, on a throwaway database) against the read + compare-and-set update a
// NATS KV bucket needs for the same token bucket (JetStream on 127.0.0.1:4222, a throwaway bucket).
// 2000 sequential operations each over 10 keys, one client. Needs the build (read-models dist), PostgreSQL
// and NATS: flock /tmp/sp-test.lock node bench/rate-limit-store.js
'use strict';
const { Client } = require('pg');
const { connect, StringCodec } = require('nats');
const { migrateReadModels } = require('../libs/read-models/dist');
const pct = (a, p) => a.sort((x, y) => x - y)[Math.ceil(p / 100 * a.length) - 1];
(async () => {
  const name = 'sp_probe_' + Date.now();
  const admin = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' }); await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = `postgres://postgres@127.0.0.1:5432/${name}`;
  await migrateReadModels(url);
  const c = new Client({ connectionString: url }); await c.connect();
  const t = [];
  for (let i = 0; i < 2000; i++) { const s = process.hrtime.bigint(); await c.query({ name: 'l', text: 'SELECT * FROM rate_limit_lease($1,$2,$3)', values: ['k' + (i % 10), 1000, 50] }); t.push(Number(process.hrtime.bigint() - s) / 1e6); }
  console.log(`rate_limit_store.pg_lease.p50_ms ${pct(t, 50).toFixed(3)}`);
  console.log(`rate_limit_store.pg_lease.p99_ms ${pct(t, 99).toFixed(3)}`);
  await c.end(); await admin.query(`DROP DATABASE ${name} WITH (FORCE)`); await admin.end();
  const nc = await connect({ servers: '127.0.0.1:4222' });
  const js = nc.jetstream(); const bucket = 'sp_probe_' + Date.now();
  const kv = await js.views.kv(bucket, { history: 1 });
  const sc = StringCodec(); const u = [];
  let conflicts = 0;
  for (let i = 0; i < 2000; i++) {
    const key = 'k' + (i % 10);
    const s = process.hrtime.bigint();
    for (;;) {
      const e = await kv.get(key);
      const state = e ? JSON.parse(sc.decode(e.value)) : { tokens: 1000, at: Date.now() };
      try { if (e) await kv.update(key, sc.encode(JSON.stringify(state)), e.revision); else await kv.create(key, sc.encode(JSON.stringify(state))); break; } catch { conflicts++; }
    }
    u.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  console.log(`rate_limit_store.nats_kv_cas.p50_ms ${pct(u, 50).toFixed(3)}`);
  console.log(`rate_limit_store.nats_kv_cas.p99_ms ${pct(u, 99).toFixed(3)}`);
  console.log(`# NATS KV compare-and-set conflicts (one writer): ${conflicts}`);
  await (await nc.jetstreamManager()).streams.delete('KV_' + bucket);
  await nc.close();
})().catch((e) => { console.error(e); process.exit(1); });
