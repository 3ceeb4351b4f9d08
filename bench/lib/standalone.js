// Boots the built standalone platform (apps/standalone/dist/main.js) as a child process for benches:
// temp data dir, free port, a bench project with raised rate limits, the sample build uploaded and ready.
// Usage: const p = await startStandalone(); ... p.api('GET', '/v3/servers'); ... await p.stop();
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const { mkdtempSync, readFileSync, rmSync } = fs;
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const ADMIN_TOKEN = 'bench-admin-token';
const UNLIMITED = { read_per_second: 1_000_000, write_per_second: 1_000_000, player_per_second: 1_000_000 };

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Polls `fn` until it gives a value; fails early when one of `children` (a child or a list) has exited. */
async function waitFor(fn, what, timeoutMs, children, log) {
  const until = Date.now() + timeoutMs;
  const watched = [children ?? []].flat();
  while (Date.now() < until) {
    const dead = watched.find((c) => c.exitCode !== null || c.signalCode !== null);
    if (dead) {
      throw new Error(`${what}: a platform process exited early (${dead.exitCode ?? dead.signalCode})\n${log.join('')}`);
    }
    const v = await fn().catch(() => undefined);
    if (v) return v;
    await sleep(100);
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms\n${log.join('')}`);
}

/** bench/fixtures/tiny-game as a build ZIP: a Python game that binds its ports, in ~10 MB (pool benches, and BENCH_GAME=tiny). */
function tinyGameZip() {
  const yazl = require('yazl');
  const zip = new yazl.ZipFile();
  zip.addFile(path.join(__dirname, '..', 'fixtures', 'tiny-game', 'server'), 'server', { mode: fs.constants.S_IFREG | 0o755 });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks = [];
    zip.outputStream.on('data', (c) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

/** The build benches upload: the sample game (examples/), or with BENCH_GAME=tiny the tiny game (the same game for two builds under comparison). */
async function sampleZip() {
  if (process.env.BENCH_GAME === 'tiny') return tinyGameZip();
  const out = path.join(os.tmpdir(), `sp-bench-sample-${process.pid}-${Date.now()}.zip`);
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), out], { stdio: 'ignore' });
    return readFileSync(out);
  } finally {
    rmSync(out, { force: true });
  }
}

/** Node flags for the platform from the environment: BENCH_PROFILE_DIR (a CPU profile), BENCH_NODE_ARGS (e.g. '-r ./patch.js'). */
function nodeArgsFromEnv() {
  return [
    ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
}

/**
 * The PostgreSQL the benches that need one make their databases on: BENCH_DATABASE_ADMIN_URL, else this
 * machine's over its Unix socket when it has one (as the standalone platform talks to its embedded database:
 * a query costs both processes about a third less CPU than over loopback TCP), else over TCP.
 */
const LOCAL_SOCKET_DIR = '/var/run/postgresql';
function adminDatabaseUrl() {
  if (process.env.BENCH_DATABASE_ADMIN_URL) return process.env.BENCH_DATABASE_ADMIN_URL;
  if (fs.existsSync(path.join(LOCAL_SOCKET_DIR, '.s.PGSQL.5432'))) return `postgres://postgres@localhost/postgres?host=${LOCAL_SOCKET_DIR}`;
  return 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** The URL of database `name` on the server of `adminUrl` (its host, socket and options kept). */
function databaseUrl(adminUrl, name) {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * BENCH_PLATFORM_ENV='K=V K=V': settings for every platform a bench starts (say SPAWNPOINT_ACCESS_LOG=false
 * METRICS_PORT=off, to compare builds without the observability features of later ones); a bench's own win.
 */
function platformEnvFromBench() {
  const out = {};
  for (const pair of (process.env.BENCH_PLATFORM_ENV ?? '').split(' ').filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_PLATFORM_ENV: expected K=V pairs, got ${pair}`);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/**
 * The platform's output goes to a file, as a container runtime writes a pod's: the bench process also generates
 * the load, and reading millions of access-log lines off a pipe took its CPU (and the platform's, through the
 * pipe) from what was measured. BENCH_PLATFORM_LOG=file keeps it there; otherwise it is removed at stop.
 * Returns { fd, join() (its last few MB, as a string), remove() }.
 */
function outputFile(keep = 4 * 1024 * 1024) {
  const file = process.env.BENCH_PLATFORM_LOG || path.join(os.tmpdir(), `sp-bench-out-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.log`);
  const fd = fs.openSync(file, 'w+');
  return {
    fd,
    join() {
      const size = fs.fstatSync(fd).size;
      const length = Math.min(size, keep);
      const buf = Buffer.alloc(length);
      fs.readSync(fd, buf, 0, length, size - length);
      return buf.toString();
    },
    remove() {
      try { fs.closeSync(fd); } catch { /* closed */ }
      if (!process.env.BENCH_PLATFORM_LOG) rmSync(file, { force: true });
    },
  };
}

/** SIGTERM, SIGKILL after 10 s; resolves once the child has exited. */
function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => { clearTimeout(kill); resolve(); });
    child.kill('SIGTERM');
  });
}

/** A bench that throws or is interrupted must not leave the platform (and its PostgreSQL) behind. Returns the un-registration. */
function stopOnInterrupt(stop) {
  const onSignal = () => { void stop().finally(() => process.exit(130)); };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  };
}

/** JSON over fetch: `route` is absolute or relative to `baseUrl`; a Buffer body is sent as it is. Returns { status, headers, body }. */
function jsonApi(baseUrl) {
  return async function api(method, route, { key, body, headers = {} } = {}) {
    const h = { ...headers };
    if (key) h['api-key'] = key;
    let payload;
    if (Buffer.isBuffer(body)) payload = body;
    else if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(route.startsWith('http') ? route : `${baseUrl}${route}`, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

/**
 * Starts the platform. Options: { portRange: '19000-19499', uploadBuild: true, env: {}, nodeArgs: [], root }
 * (nodeArgs go before main.js, followed by those of nodeArgsFromEnv(), for every bench; root: another
 * checkout whose build runs instead of this one's, for A/B benches across commits; BENCH_ROOT sets it for
 * every platform a bench starts).
 * Returns { pid, baseUrl, port, serverKey, clientKey, projectId, buildId, dataDir, api, output, stop }.
 */
async function startStandalone(options = {}) {
  const root = options.root ?? process.env.BENCH_ROOT ?? ROOT;
  const main = path.join(root, 'apps', 'standalone', 'dist', 'main.js');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-bench-'));
  const port = await freePort();
  const portRange = options.portRange ?? '19000-19499';
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), LEGACY_PORT: String(await freePort()), HOST: '127.0.0.1', SPAWNPOINT_DATA_DIR: dataDir,
    SPAWNPOINT_ADMIN_TOKEN: ADMIN_TOKEN, SPAWNPOINT_PORT_RANGE: portRange, SPAWNPOINT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Metrics on, as by default, on any free port (two platforms side by side must not share 9464).
    METRICS_PORT: '0',
    ...platformEnvFromBench(),
    ...(options.env ?? {}),
  };
  const log = outputFile();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...nodeArgsFromEnv(), main], { cwd: root, env, stdio: ['ignore', log.fd, log.fd] });
  if (process.env.BENCH_PLATFORM_LOG) child.on('exit', (code, signal) => fs.appendFileSync(process.env.BENCH_PLATFORM_LOG, `\n# platform exited: code ${code} signal ${signal}\n`));

  let stopped = false;
  async function stop() {
    if (stopped) return;
    stopped = true;
    unguard();
    await stopChild(child);
    log.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const unguard = stopOnInterrupt(stop);

  const baseUrl = `http://127.0.0.1:${port}/api`;
  const api = jsonApi(baseUrl);

  try {
    // Started: its log line with the default project's keys (JSON, docs/operations.md "Logs").
    await waitFor(async () => /"client_key":|Client key:/.test(log.join('')), 'standalone start', 120_000, child, log);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const made = await api('POST', '/admin/projects', { headers: admin, body: { name: 'bench', plan: 'pro' } });
    if (made.status !== 201) throw new Error(`admin create project: ${made.status} ${JSON.stringify(made.body)}`);
    const { project_id: projectId, server_key: serverKey, client_key: clientKey } = made.body;
    const patched = await api('PATCH', `/admin/projects/${projectId}`, { headers: admin, body: { rate_limits: UNLIMITED } });
    if (patched.status !== 200) throw new Error(`admin raise limits: ${patched.status} ${JSON.stringify(patched.body)}`);

    let buildId = null;
    if (options.uploadBuild !== false) {
      const ticket = await api('POST', '/v3/builds/upload-url?name=default', { key: serverKey });
      if (ticket.status !== 201) throw new Error(`upload-url: ${ticket.status} ${JSON.stringify(ticket.body)}`);
      const put = await api('PUT', ticket.body.upload_url, { body: await sampleZip(), headers: { 'content-type': 'application/zip' } });
      if (put.status !== 200) throw new Error(`upload: ${put.status} ${JSON.stringify(put.body)}`);
      buildId = ticket.body.build_id;
      const build = await waitFor(async () => {
        const r = await api('GET', `/v3/builds/${buildId}`, { key: serverKey });
        return r.body && (r.body.status === 'ready' || r.body.status === 'failed') ? r.body : undefined;
      }, 'build ready', 30_000, child, log);
      if (build.status !== 'ready') throw new Error(`sample build failed: ${build.error}`);
    }
    return { pid: child.pid, baseUrl, port, serverKey, clientKey, projectId, buildId, dataDir, api, output: () => log.join(''), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 1/100 s). */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** User + system CPU seconds of every postgres process now running (a bench machine's: its database's work). */
function postgresCpu() {
  let seconds = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) seconds += cpuSeconds(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return seconds;
}

/**
 * Waits until the process `pid` is nearly idle (under `share` of one core over a `windowMs` window), at most
 * `maxMs`: a burst bench then measures its own burst, not the tail of the setup's work (projections,
 * workflow timers) still running. Returns the ms waited.
 */
async function waitQuiet(pid, { share = 0.1, windowMs = 500, maxMs = 30_000 } = {}) {
  const start = Date.now();
  for (;;) {
    const before = cpuSeconds(pid);
    await sleep(windowMs);
    if ((cpuSeconds(pid) - before) / (windowMs / 1000) < share || Date.now() - start >= maxMs) return Date.now() - start;
  }
}

/** Starts a server and polls until it runs (or fails). Returns the running view. */
async function startServer(p, name = 'bench', region = 'us-east') {
  const started = await p.api('POST', '/v3/servers/start', { key: p.serverKey, body: { name, region } });
  if (started.status !== 201) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  const id = started.body.instance_id;
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const r = await p.api('GET', `/v3/servers/${id}`, { key: p.serverKey });
    if (r.body.status === 'running') return r.body;
    if (r.body.status === 'stopped') throw new Error(`server ${id} stopped before running: ${JSON.stringify(r.body)}`);
    await sleep(20);
  }
  throw new Error(`server ${id} not running within 30 s`);
}

module.exports = { adminDatabaseUrl, databaseUrl, startStandalone, startServer, cpuSeconds, postgresCpu, waitQuiet, freePort, percentile, sleep, waitFor, stopChild, stopOnInterrupt, jsonApi, sampleZip, tinyGameZip, ADMIN_TOKEN };
