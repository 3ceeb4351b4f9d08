// A bench worker process (forked by bench/lobby-streams.js) that holds many lobby event streams on raw
// `net` sockets: it writes one HTTP/1.1 GET per socket, decodes the chunked body, splits server-sent
// events and, for every `lobby_updated`, records receive time − the newest `sentAt` among the lobby's
// player states (the PATCH that caused it; both clocks are this machine's wall clock).
// IPC: { type: 'open', port, key, players, concurrency } → progress/opened; { type: 'collect' } → stats;
// { type: 'close' } → sockets destroyed, exit.
'use strict';
const net = require('node:net');

const now = () => Date.now();
const SENT_AT = /"sentAt":(\d+(?:\.\d+)?)/g;

let latencies = [];
let deliveries = 0;
let otherEvents = 0;
let connected = 0;
let failed = 0;
let closedEarly = 0;
const sockets = [];
let closing = false;

/** Chunked transfer decoding + SSE framing for one stream. */
class StreamParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.head = '';
    this.inBody = false;
    this.status = 0;
    this.raw = Buffer.alloc(0); // undecoded chunked bytes
    this.need = -1; // bytes left in the current chunk (-1: reading a size line)
    this.text = ''; // decoded, not yet framed SSE text
  }

  push(buf, at) {
    if (!this.inBody) {
      this.head += buf.toString('latin1');
      const end = this.head.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.status = Number(this.head.slice(9, 12));
      const rest = Buffer.from(this.head.slice(end + 4), 'latin1');
      this.head = '';
      this.inBody = true;
      if (this.status !== 200) { this.onEvent('status', String(this.status), at); return; }
      buf = rest;
    }
    this.raw = this.raw.length ? Buffer.concat([this.raw, buf]) : buf;
    let out = '';
    for (;;) {
      if (this.need < 0) {
        const nl = this.raw.indexOf('\r\n');
        if (nl < 0) break;
        this.need = parseInt(this.raw.toString('latin1', 0, nl), 16);
        this.raw = this.raw.subarray(nl + 2);
        if (this.need === 0) { this.onEvent('end', '', at); return; }
      }
      if (this.raw.length < this.need + 2) break;
      out += this.raw.toString('utf8', 0, this.need);
      this.raw = this.raw.subarray(this.need + 2);
      this.need = -1;
    }
    if (!out) return;
    this.text += out;
    let sep;
    while ((sep = this.text.indexOf('\n\n')) >= 0) {
      const frame = this.text.slice(0, sep);
      this.text = this.text.slice(sep + 2);
      const ev = /(?:^|\n)event: ([^\n]*)/.exec(frame);
      const data = /(?:^|\n)data: ([^\n]*)/.exec(frame);
      this.onEvent(ev ? ev[1] : 'message', data ? data[1] : '', at);
    }
  }
}

function openOne(port, key, player) {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (ok) => {
      if (settled) return;
      settled = true;
      if (ok) connected++; else failed++;
      resolve(ok);
    };
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.setNoDelay(true);
    const parser = new StreamParser((event, data, at) => {
      if (event === 'connected') settle(true);
      else if (event === 'lobby_updated') {
        let newest = 0;
        for (const m of data.matchAll(SENT_AT)) newest = Math.max(newest, Number(m[1]));
        if (newest > 0) {
          deliveries++;
          latencies.push(at - newest);
        }
      } else if (event === 'status' || event === 'end') {
        if (!settled) process.send({ type: 'error', player, message: `${event} ${data}` });
        settle(false);
        socket.destroy();
      } else otherEvents++;
    });
    socket.on('data', (buf) => parser.push(buf, now()));
    socket.on('error', (err) => {
      if (!settled) process.send({ type: 'error', player, message: err.message });
      settle(false);
    });
    socket.on('close', () => {
      if (settled && !closing) closedEarly++;
      settle(false);
    });
    socket.write(`GET /api/v3/lobbies/default/me/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\napi-key: ${key}\r\n` +
      `x-player-id: ${player}\r\nAccept: text/event-stream\r\n\r\n`);
    sockets.push(socket);
  });
}

async function open({ port, key, players, concurrency }) {
  let next = 0;
  let lastReport = 0;
  async function lane() {
    while (next < players.length) {
      await openOne(port, key, players[next++]);
      if (Date.now() - lastReport > 500) {
        lastReport = Date.now();
        process.send({ type: 'progress', connected, failed });
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  process.send({ type: 'opened', connected, failed });
}

process.on('message', (msg) => {
  if (msg.type === 'open') void open(msg);
  else if (msg.type === 'reset') {
    latencies = [];
    deliveries = 0;
    otherEvents = 0;
    process.send({ type: 'reset' });
  } else if (msg.type === 'collect') {
    process.send({ type: 'stats', latencies, deliveries, otherEvents, connected, failed, closedEarly });
  } else if (msg.type === 'close') {
    closing = true;
    for (const s of sockets) s.destroy();
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
