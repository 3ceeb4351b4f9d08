#!/usr/bin/env node
// Sample game server for Spawnpoint: echoes over TCP (per line) and UDP (per datagram) on the
// ports the platform hands it, and tells the platform it is ready and how many players it has through
// @spawnpoint/game-server (examples/zip-build.js vendors the SDK into the ZIP; without it, or outside
// Spawnpoint, the game just runs). No npm install needed, so it runs from a plain ZIP upload.
'use strict';
const dgram = require('node:dgram');
const net = require('node:net');

let sdk = null;
try {
  sdk = require('@spawnpoint/game-server');
} catch {
  // Not vendored (a ZIP made without the built SDK): no game API, port detection alone.
}
/** The game API client from SPAWNPOINT_API_URL / SPAWNPOINT_SERVER_TOKEN, or null. */
const game = sdk ? sdk.GameServer.fromEnv(process.env) : null;

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const flagValue = (name) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};

const info = (message) => process.stdout.write(`INFO ${message}\n`);
const warn = (message) => process.stdout.write(`WARN ${message}\n`);
const error = (message) => process.stderr.write(`ERROR ${message}\n`);

/** The ports to bind: SPAWNPOINT_PORTS (name, port, protocol), else the two conventional variables. */
function portsFromEnv(env) {
  if (env.SPAWNPOINT_PORTS) return JSON.parse(env.SPAWNPOINT_PORTS);
  const ports = [];
  if (env.SPAWNPOINT_PORT_GAME) ports.push({ name: 'game', port: Number(env.SPAWNPOINT_PORT_GAME), protocol: 'udp' });
  if (env.SPAWNPOINT_PORT_GAME_TCP) ports.push({ name: 'game_tcp', port: Number(env.SPAWNPOINT_PORT_GAME_TCP), protocol: 'tcp' });
  return ports;
}

/** Players: open TCP connections plus UDP peers seen; each change is reported (never fatal to the game). */
let tcpPlayers = 0;
let udpPlayers = 0;
let reportedReady = false;
function playersChanged() {
  if (!game || !reportedReady) return;
  game.setPlayers(tcpPlayers + udpPlayers).catch((err) => warn(`reporting players failed: ${err.message}`));
}

function listenTcp(port) {
  const server = net.createServer((socket) => {
    info(`tcp connection from ${socket.remoteAddress}:${socket.remotePort} on ${port}`);
    tcpPlayers++;
    playersChanged();
    socket.on('close', () => {
      tcpPlayers--;
      playersChanged();
    });
    socket.on('error', () => undefined); // a client resetting is not our problem
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (data) => {
      const lines = (buffered + data).split('\n');
      buffered = lines.pop();
      for (const line of lines) socket.write(`echo: ${line.replace(/\r$/, '')}\n`);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
}

function listenUdp(port) {
  const socket = dgram.createSocket('udp4');
  const peers = new Set();
  socket.on('message', (payload, from) => {
    const peer = `${from.address}:${from.port}`;
    if (!peers.has(peer)) {
      peers.add(peer);
      info(`udp peer ${peer} on ${port}`);
      udpPlayers++;
      playersChanged();
    }
    socket.send(Buffer.concat([Buffer.from('echo: '), payload]), from.port, from.address);
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '0.0.0.0', () => resolve());
  });
}

async function main() {
  if (flag('--crash')) {
    error('crashing on purpose (--crash)');
    process.exit(1);
  }
  // Registered first, so a stop during startup still exits cleanly.
  const shutdown = (signal) => {
    info(`shutting down (${signal})`);
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  info(`game server ${process.env.SPAWNPOINT_INSTANCE_ID ?? '(no instance id)'} starting, match ${process.env.SPAWNPOINT_MATCH_ID ?? '(none)'}`);
  info(`argv ${JSON.stringify(argv)}`);
  info(`pid ${process.pid}`);

  if (flag('--no-bind')) {
    info('--no-bind: not binding any port');
    setInterval(() => undefined, 60_000); // stay alive with nothing to serve
  } else {
    // --bind-after-ms N: a slow start (the ports bound N ms late), with a log line each second meanwhile.
    const bindAfter = flagValue('--bind-after-ms');
    if (bindAfter) {
      for (let waited = 0; waited < Number(bindAfter); waited += 1000) {
        info(`still starting (${waited} ms)`);
        await new Promise((r) => setTimeout(r, Math.min(1000, Number(bindAfter) - waited)));
      }
    }
    const ports = portsFromEnv(process.env);
    for (const { port, protocol } of ports) {
      await (protocol === 'tcp' ? listenTcp(port) : listenUdp(port));
    }
    const list = (protocol) => ports.filter((p) => p.protocol === protocol).map((p) => p.port).join(',');
    info(`listening udp ${list('udp') || '-'} tcp ${list('tcp') || '-'}`);
  }
  warn('sample warning: no players yet');
  error('sample error line');

  // A game that serves nothing (--no-bind) never says it is ready: it stays launching until the startup timeout.
  if (game && !flag('--no-bind')) await useGameApi();

  const exitAfter = flagValue('--exit-after-ms');
  if (exitAfter !== undefined) {
    setTimeout(() => {
      info(`exiting with code 3 after ${exitAfter} ms (--exit-after-ms)`);
      process.exit(3);
    }, Number(exitAfter));
  }
}

/**
 * Ready, players and health through the SDK; --ready-after-ms N reports ready N ms late (see readiness
 * "sdk"), --watch-claim logs a pool claim, --stop-after-ms N asks to be stopped. --resettable (or
 * SAMPLE_RESETTABLE=1 in the environment, as a pool's servers get it from the project's variables) says the
 * game resets itself: a claim lease that expires returns it to the pool, and it logs each claim and release.
 */
async function useGameApi() {
  const readyAfter = flagValue('--ready-after-ms');
  if (readyAfter !== undefined) await new Promise((resolve) => setTimeout(resolve, Number(readyAfter)));
  try {
    await game.ready();
    reportedReady = true;
    await game.report({ players: tcpPlayers + udpPlayers, health: 'healthy', ...(resettable ? { resettable: true } : {}) });
    info('reported ready to spawnpoint');
  } catch (err) {
    warn(`game API: ${err.message}`);
    return;
  }
  if (resettable) void claimsAndReleases();
  if (flag('--watch-claim')) {
    game.watchClaim().then((s) => info(`claimed as "${s.name}", match ${s.match_id}`), (err) => warn(`watching the claim failed: ${err.message}`));
  }
  const stopAfter = flagValue('--stop-after-ms');
  if (stopAfter !== undefined) {
    setTimeout(() => {
      info(`asking spawnpoint to stop this server after ${stopAfter} ms (--stop-after-ms)`);
      game.requestStop().catch((err) => warn(`stop request failed: ${err.message}`));
    }, Number(stopAfter));
  }
}

const resettable = flag('--resettable') || process.env.SAMPLE_RESETTABLE === '1';

/** A resettable game's loop: claimed, then released back to the pool (it would reset its match state here), again. */
async function claimsAndReleases() {
  try {
    for (;;) {
      const claimed = await game.watchClaim();
      if (!claimed.is_pool_server) return;
      info(`claimed as "${claimed.name}", match ${claimed.match_id}`);
      const released = await game.watchRelease();
      info(`released back to the pool as "${released.name}": reset for the next match ${released.match_id}`);
    }
  } catch (err) {
    warn(`watching claims failed: ${err.message}`);
  }
}

main().catch((err) => {
  error(`failed to start: ${err.message}`);
  process.exit(1);
});
