#!/usr/bin/env node
// Sample game server for Spawnpoint: echoes over TCP (per line) and UDP (per datagram) on the
// ports the platform hands it. No dependencies, so it runs from a plain ZIP upload.
'use strict';
const dgram = require('node:dgram');
const net = require('node:net');

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

function listenTcp(port) {
  const server = net.createServer((socket) => {
    info(`tcp connection from ${socket.remoteAddress}:${socket.remotePort} on ${port}`);
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
    const ports = portsFromEnv(process.env);
    for (const { port, protocol } of ports) {
      await (protocol === 'tcp' ? listenTcp(port) : listenUdp(port));
    }
    const list = (protocol) => ports.filter((p) => p.protocol === protocol).map((p) => p.port).join(',');
    info(`listening udp ${list('udp') || '-'} tcp ${list('tcp') || '-'}`);
  }
  warn('sample warning: no players yet');
  error('sample error line');

  const exitAfter = flagValue('--exit-after-ms');
  if (exitAfter !== undefined) {
    setTimeout(() => {
      info(`exiting with code 3 after ${exitAfter} ms (--exit-after-ms)`);
      process.exit(3);
    }, Number(exitAfter));
  }
}

main().catch((err) => {
  error(`failed to start: ${err.message}`);
  process.exit(1);
});
