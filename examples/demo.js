#!/usr/bin/env node
// npm run demo: the README's newcomer story against a running Spawnpoint (npm start in another
// terminal). Uploads the sample game, starts a server in us-east, talks to it over TCP and UDP, stops it.
// Uses SPAWNPOINT_URL (default http://127.0.0.1:8080) and SPAWNPOINT_API_KEY (default: the server
// key standalone keeps in $SPAWNPOINT_DATA_DIR/default-project.json).
'use strict';
const { execFileSync } = require('node:child_process');
const dgram = require('node:dgram');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const base = (process.env.SPAWNPOINT_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '') + '/api';
const dataDir = path.resolve(process.env.SPAWNPOINT_DATA_DIR ?? '.spawnpoint');
const apiKey = process.env.SPAWNPOINT_API_KEY ?? readSavedKey();

function readSavedKey() {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'default-project.json'), 'utf8')).serverKey;
  } catch {
    console.error(`No SPAWNPOINT_API_KEY and no ${dataDir}/default-project.json: start the platform with npm start first.`);
    process.exit(2);
  }
}

async function api(method, url, body, headers = {}) {
  const res = await fetch(url.startsWith('http') ? url : base + url, {
    method, headers: { 'api-key': apiKey, ...(body && !(body instanceof Buffer) ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body instanceof Buffer ? body : body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function tcpEcho(host, port, line) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, host, () => s.write(line + '\n'));
    s.once('data', (d) => { s.end(); resolve(d.toString().trim()); });
    s.once('error', reject);
    setTimeout(() => { s.destroy(); reject(new Error('tcp timeout')); }, 5000).unref();
  });
}

function udpEcho(host, port, text) {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    s.once('message', (m) => { s.close(); resolve(m.toString()); });
    s.send(text, port, host, (err) => err && reject(err));
    setTimeout(() => { s.close(); reject(new Error('udp timeout')); }, 5000).unref();
  });
}

async function main() {
  const zip = path.join(os.tmpdir(), `spawnpoint-demo-${process.pid}.zip`);
  execFileSync(process.execPath, [path.join(__dirname, 'zip-build.js'), zip]);
  const ticket = await api('POST', '/v3/builds/upload-url?name=default');
  console.log(`1. upload URL for build "default" v${ticket.version}`);
  await api('PUT', ticket.upload_url, fs.readFileSync(zip), { 'content-type': 'application/zip' });
  let build;
  do { await sleep(200); build = await api('GET', `/v3/builds/${ticket.build_id}`); } while (build.status === 'processing');
  console.log(`2. build ${build.status}${build.error ? ': ' + build.error : ''} (executable ${build.executable_path})`);
  if (build.status !== 'ready') {
    // What processing did, up to the reason it failed.
    for (const line of (await api('GET', `/v3/builds/${ticket.build_id}/logs`)).logs) console.log(`   ${line.level} ${line.message}`);
    process.exit(1);
  }
  const t0 = Date.now();
  const started = await api('POST', '/v3/servers/start', { name: 'demo', region: 'us-east' });
  console.log(`3. server ${started.instance_id} ${started.status}, ports ${started.network_ports.map((p) => `${p.protocol}:${p.host}:${p.external_port}`).join(' ')}`);
  let server = started;
  while (server.status === 'launching') { await sleep(100); server = await api('GET', `/v3/servers/${started.instance_id}`); }
  console.log(`4. ${server.status} after ${Date.now() - t0} ms`);
  const tcp = server.network_ports.find((p) => p.protocol === 'tcp');
  const udp = server.network_ports.find((p) => p.protocol === 'udp');
  console.log(`5. TCP says "${await tcpEcho(tcp.host, tcp.external_port, 'hello')}", UDP says "${await udpEcho(udp.host, udp.external_port, 'ping')}"`);
  const stopped = await api('DELETE', `/v3/servers/${started.instance_id}`);
  console.log(`6. ${stopped.status}, network_ports ${JSON.stringify(stopped.network_ports)}`);
  fs.rmSync(zip, { force: true });
}

main().catch((err) => { console.error(err.message); process.exit(1); });
