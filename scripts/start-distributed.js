#!/usr/bin/env node
// Distributed mode on one machine: each app as its own process over NATS (NATS_URL) and
// PostgreSQL (DATABASE_URL). Ctrl-C stops them all. The services share SPAWNPOINT_DATA_DIR.
const { spawn } = require('node:child_process');
const path = require('node:path');

const apps = ['projects', 'builds', 'servers', 'gateway'];
const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/spawnpoint',
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
};
const children = apps.map((app) => {
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'apps', app, 'dist', 'main.js')], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    console.log(`[${app}] exited (${signal ?? code})`);
    if (!stopping) stop(1);
  });
  return child;
});
let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const c of children) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 3000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r() : c.on('exit', r))))).then(() => process.exit(code));
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
