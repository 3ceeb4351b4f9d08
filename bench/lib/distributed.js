// Boots the built distributed platform for benches: a throwaway database on 127.0.0.1:5432, the four
// services and any number of gateways (each with its own environment on top), over NATS on 127.0.0.1:4222.
// Usage: const p = await startDistributed({ gateways: [{}, { SPAWNPOINT_RATE_LIMITS: 'local' }] }); ... await p.stop();
'use strict';
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { freePort, waitFor, stopChild, stopOnInterrupt, jsonApi, ADMIN_TOKEN } = require('./standalone');

const ROOT = path.join(__dirname, '..', '..');
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(sql) {
  const c = new Client({ connectionString: ADMIN_URL });
  await c.connect();
  try { await c.query(sql); } finally { await c.end(); }
}

/** Options: { portRange, gateways: [extraEnv per gateway] (default one gateway) }. Returns { gatewayUrls, api(method, url, {key, body, headers}), stop }. */
async function startDistributed(options = {}) {
  const dbName = `sp_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${dbName}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-bench-dist-'));
  const log = [];
  const children = [];
  const base = {
    PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', SPAWNPOINT_DATA_DIR: dataDir, SPAWNPOINT_ADMIN_TOKEN: ADMIN_TOKEN,
    SPAWNPOINT_PORT_RANGE: options.portRange ?? '19500-19599', DATABASE_URL: url.toString(), NATS_URL: process.env.NATS_URL || 'nats://127.0.0.1:4222',
    METRICS_PORT: '0', // metrics on, as by default; each process any free port (not all on 9464)
  };
  const launch = (app, env) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'apps', app, 'dist', 'main.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => log.push(`[${app}] ${d}`));
    child.stderr.on('data', (d) => log.push(`[${app}!] ${d}`));
    children.push(child);
    return child;
  };
  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    unguard();
    await Promise.all(children.map(stopChild));
    rmSync(dataDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
  }
  const unguard = stopOnInterrupt(stop);
  const until = (fn, what, ms = 60_000) => waitFor(fn, what, ms, children, log);
  const api = jsonApi('');

  try {
    const services = ['projects', 'builds', 'servers', 'lobbies'];
    for (const app of services) launch(app, { ...base, PORT: String(await freePort()) });
    await until(async () => (log.join('').match(/service ready/g) ?? []).length === services.length, 'services ready');
    const gatewayUrls = [];
    for (const extra of options.gateways ?? [{}]) {
      const port = await freePort();
      launch('gateway', { ...base, PORT: String(port), LEGACY_PORT: String(await freePort()), SPAWNPOINT_PUBLIC_URL: `http://127.0.0.1:${port}`, ...extra });
      const u = `http://127.0.0.1:${port}/api`;
      await until(async () => (await fetch(`${u}/health`)).status === 200, `gateway on ${port} healthy`);
      gatewayUrls.push(u);
    }
    return { gatewayUrls, api, output: () => log.join(''), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startDistributed };
