#!/usr/bin/env node
// Distributed mode on one machine: each app as its own process over NATS (NATS_URL) and
// PostgreSQL (DATABASE_URL; EVENTSTORE_URL, when set, moves the services' events to EventStoreDB).
// Ctrl-C stops them all. The services share SPAWNPOINT_DATA_DIR. All start at once: the services migrate
// the schema, and the gateway (bus-only, ADR-0009) waits for them before it listens.
const { spawn } = require('node:child_process');
const path = require('node:path');

const apps = ['projects', 'builds', 'servers', 'lobbies', 'matchmaking', 'backfill', 'gateway'];
const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/spawnpoint',
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
};
/** Create the database named in DATABASE_URL when it does not exist yet (needs CREATEDB rights). */
async function ensureDatabase(url) {
  const { Client } = require('pg');
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const c = new Client({ connectionString: admin.toString() });
  await c.connect();
  try {
    const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await c.end();
  }
}

let children = [];
ensureDatabase(env.DATABASE_URL).then(() => { children = apps.map(launch); }, (err) => {
  console.error(`cannot prepare ${env.DATABASE_URL}: ${err.message}`);
  process.exit(1);
});

// Each app its own ops port (probes and /metrics) on this one machine: the gateway 9464, then one up per
// service in the order above; METRICS_PORT or HEALTH_PORT in the environment is the gateway's, the services
// counting on from it (`off` turns them all off, `0` gives each any free port).
const opsBase = (process.env.HEALTH_PORT || process.env.METRICS_PORT || '9464').trim();
const opsPort = (app) => {
  // Anything else is the apps' to refuse, naming the setting.
  if (!/^[1-9]\d*$/.test(opsBase)) return opsBase;
  return String(Number(opsBase) + (app === 'gateway' ? 0 : apps.indexOf(app) + 1));
};

function launch(app) {
  const appEnv = { ...env, HEALTH_PORT: '', METRICS_PORT: opsPort(app) };
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'apps', app, 'dist', 'main.js')], { env: appEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    console.log(`[${app}] exited (${signal ?? code})`);
    if (!stopping) stop(1);
  });
  return child;
}
let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.on('exit', r))))).then(() => process.exit(code));
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
