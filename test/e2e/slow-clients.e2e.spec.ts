// Slow clients (issue 36 item 10, ADR-0020), over raw sockets with the limits set low by env: a body sent
// 1 byte per second is 408 within the stall window, a JSON body that keeps coming but too slowly is 408 at
// the body timeout, an upload PUT stalled mid-body is 408 while a slow but steady one succeeds, a header
// trickle is closed, requests still sending their bodies are capped per address (429), event streams per key
// (429) while an open stream outlives the idle timeout (its pings), and the platform serves normally after.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { client, eventually } from '../support/http';
import { lobbyEvents } from '../support/sse';
import { Platform, startDistributed, startStandalone } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');
const IDLE_MS = 2_000;
const BODY_TIMEOUT_MS = 4_000;
const HEADERS_TIMEOUT_MS = 2_000;
const MAX_INCOMPLETE = 5;
const MAX_STREAMS = 3;
const LIMITS = {
  SPAWNPOINT_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
  SPAWNPOINT_HTTP_BODY_IDLE_MS: String(IDLE_MS),
  SPAWNPOINT_HTTP_BODY_MIN_BYTES: '1024',
  SPAWNPOINT_HTTP_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
  SPAWNPOINT_HTTP_MAX_INCOMPLETE_PER_SOURCE: String(MAX_INCOMPLETE),
  SPAWNPOINT_HTTP_IDLE_TIMEOUT_MS: '4000',
  SPAWNPOINT_MAX_STREAMS_PER_KEY: String(MAX_STREAMS),
  SPAWNPOINT_LOBBY_PING_MS: '1000',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RawAnswer { status: number | null; body: any; text: string; closed: boolean; elapsedMs: number }

/**
 * A request over its own socket: the head at once (or `headTrickle` bytes one every 500 ms), then each body
 * chunk after its delay; resolves when the server has answered and closed, or `waitMs` after the last write.
 */
function rawRequest(url: string, o: { method: string; path: string; headers: Record<string, string>; chunks?: { delayMs: number; data: Buffer | string }[]; headTrickle?: string; waitMs: number }): Promise<RawAnswer & { socket: net.Socket }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    let closed = false;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const at = text.indexOf('\r\n\r\n');
      let body: any = null;
      try { body = at >= 0 ? JSON.parse(text.slice(at + 4)) : null; } catch { body = text.slice(at + 4); }
      resolve({ status: status ? Number(status[1]) : null, body, text, closed, elapsedMs: Date.now() - started, socket });
    };
    socket.on('data', (d) => { text += d.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.on('close', () => { closed = true; finish(); });
    socket.on('connect', async () => {
      const head = `${o.method} ${o.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${Object.entries(o.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}`;
      if (o.headTrickle !== undefined) {
        socket.write(head);
        for (const ch of o.headTrickle) {
          if (closed) break;
          await sleep(500);
          socket.write(ch);
        }
      } else {
        socket.write(`${head}\r\n`);
      }
      for (const c of o.chunks ?? []) {
        await sleep(c.delayMs);
        if (closed || text.includes('\r\n\r\n')) break;
        socket.write(c.data);
      }
      setTimeout(finish, o.waitMs);
    });
  });
}

/** 1 byte a second of a JSON body of `length` bytes. */
const trickle = (length: number) => Array.from({ length }, (_, i) => ({ delayMs: 1_000, data: i === 0 ? '{' : ' ' }));

function describeSlowClients(mode: string, start: () => Promise<Platform>, full: boolean): void {
  describe(`slow clients (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    beforeAll(async () => { p = await start(); });
    afterAll(() => p?.stop());

    it('a POST body sent 1 byte per second is 408 (Error body) within the stall window, and the connection is closed', async () => {
      const answer = await rawRequest(p.baseUrl, {
        method: 'POST', path: '/api/v3/lobbies/default', headers: { 'api-key': p.clientKey, 'x-player-id': 'slow', 'content-type': 'application/json', 'content-length': '60' },
        chunks: trickle(60), waitMs: 1_000,
      });
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({ error: expect.stringContaining('stalled'), status: 408 });
      expect(answer.closed).toBe(true);
      expect(answer.elapsedMs).toBeLessThan(IDLE_MS * 2 + 1_500);
    });

    it('the same on the legacy listener', async () => {
      const answer = await rawRequest(p.legacyUrl, {
        method: 'POST', path: '/lobbies', headers: { 'api-key': p.clientKey, 'content-type': 'application/json', 'content-length': '60' },
        chunks: trickle(60), waitMs: 1_000,
      });
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({ error: expect.stringContaining('stalled'), status: 408 });
      expect(answer.closed).toBe(true);
    });

    if (!full) return;

    it('a JSON body that keeps coming, but not whole within the body timeout, is 408', async () => {
      // 2 KiB every 500 ms: never stalled, but 200 KiB would take 50 s.
      const answer = await rawRequest(p.baseUrl, {
        method: 'POST', path: '/api/v3/lobbies/default', headers: { 'api-key': p.clientKey, 'x-player-id': 'steady', 'content-type': 'application/json', 'content-length': String(200 * 1024) },
        chunks: Array.from({ length: 100 }, (_, i) => ({ delayMs: 500, data: i === 0 ? `{"name":"${' '.repeat(2040)}` : ' '.repeat(2048) })), waitMs: 1_000,
      });
      expect(answer.status).toBe(408);
      expect(answer.body).toEqual({ error: expect.stringContaining('not received within'), status: 408 });
      expect(answer.elapsedMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
      expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + 2_000);
    });

    it('an upload PUT stalled mid-body is 408; a slow but steady one (longer than the body timeout) succeeds', async () => {
      const api = client(p.baseUrl, p.serverKey);
      const zipPath = path.join(os.tmpdir(), `sp-slow-${process.pid}-${Date.now()}.zip`);
      execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), zipPath]);
      const zip = readFileSync(zipPath);

      const stalledTicket = await api.post('/v3/builds/upload-url?name=stalled');
      expect(stalledTicket.status).toBe(201);
      const stalledUrl = new URL(stalledTicket.body.upload_url);
      const stalled = await rawRequest(p.baseUrl, {
        method: 'PUT', path: stalledUrl.pathname + stalledUrl.search, headers: { 'content-type': 'application/zip', 'content-length': String(zip.length) },
        chunks: [{ delayMs: 0, data: zip.subarray(0, 2048) }, { delayMs: IDLE_MS * 3, data: Buffer.alloc(0) }], waitMs: 500,
      });
      expect(stalled.status).toBe(408);
      expect(stalled.body).toMatchObject({ status: 408 });
      expect(stalled.elapsedMs).toBeLessThan(IDLE_MS * 2 + 1_500);

      const steadyTicket = await api.post('/v3/builds/upload-url?name=steady');
      const steadyUrl = new URL(steadyTicket.body.upload_url);
      const pieces = 12;
      const size = Math.ceil(zip.length / pieces);
      const steady = await rawRequest(p.baseUrl, {
        method: 'PUT', path: steadyUrl.pathname + steadyUrl.search, headers: { 'content-type': 'application/zip', 'content-length': String(zip.length), connection: 'close' },
        chunks: Array.from({ length: pieces }, (_, i) => ({ delayMs: 500, data: zip.subarray(i * size, (i + 1) * size) })), waitMs: 10_000,
      });
      expect(steady.elapsedMs).toBeGreaterThan(BODY_TIMEOUT_MS);
      expect(steady.status).toBeLessThan(300);
      await eventually(() => api.get(`/v3/builds/${steadyTicket.body.build_id}`), (r) => r.body.status === 'ready', 20_000, 'steady build ready');
    });

    it('a header trickle is closed at the headers timeout', async () => {
      const answer = await rawRequest(p.baseUrl, { method: 'GET', path: '/api/health', headers: {}, headTrickle: 'x-slow: 1234567890abcdefghij\r\n\r\n', waitMs: 500 });
      expect(answer.closed).toBe(true);
      expect(answer.elapsedMs).toBeLessThan(HEADERS_TIMEOUT_MS + 3_000);
      if (answer.status !== null) expect(answer.status).toBe(408);
    });

    it(`at most ${MAX_INCOMPLETE} requests still sending their body per address: the next is 429`, async () => {
      const { hostname, port } = new URL(p.baseUrl);
      const held: net.Socket[] = [];
      try {
        for (let i = 0; i < MAX_INCOMPLETE; i++) {
          const s = net.connect(Number(port), hostname);
          s.on('error', () => undefined);
          await new Promise((r) => s.once('connect', r));
          s.write(`POST /api/v3/lobbies/default HTTP/1.1\r\nHost: x\r\napi-key: ${p.clientKey}\r\nx-player-id: held-${i}\r\ncontent-type: application/json\r\ncontent-length: 5000\r\n\r\n{`);
          held.push(s);
        }
        await sleep(300);
        const over = await rawRequest(p.baseUrl, {
          method: 'POST', path: '/api/v3/lobbies/default', headers: { 'api-key': p.clientKey, 'x-player-id': 'one-more', 'content-type': 'application/json', 'content-length': '100' },
          chunks: [{ delayMs: 0, data: '{' }], waitMs: 1_000,
        });
        expect(over.status).toBe(429);
        expect(over.body).toEqual({ error: expect.stringContaining('still sending'), status: 429 });
      } finally {
        for (const s of held) s.destroy();
      }
      await sleep(300);
      // The slots are given back when those connections go.
      const created = await client(p.baseUrl, p.clientKey).post('/v3/lobbies/default', { name: 'after cap' }, { 'x-player-id': 'after-cap' });
      expect(created.status).toBe(201);
    });

    it(`at most ${MAX_STREAMS} open event streams per key: the next is 429, and an open one outlives the idle timeout`, async () => {
      const api = client(p.baseUrl, p.clientKey);
      const players = ['s1', 's2', 's3', 's4'];
      for (const player of players) expect((await api.post('/v3/lobbies/default', { name: player }, { 'x-player-id': player })).status).toBe(201);
      const streams = players.slice(0, MAX_STREAMS).map((player) => lobbyEvents(p.baseUrl, p.clientKey, 'default', player));
      try {
        for (const s of streams) await s.next('connected');
        const over = await api.get('/v3/lobbies/default/me/events', { 'x-player-id': 's4' });
        expect(over.status).toBe(429);
        expect(over.body).toEqual({ error: expect.stringContaining('open event streams'), status: 429 });
        // Open streams are not cut by the idle timeout (4 s here): their pings keep them alive.
        await sleep(5_500);
        expect(streams[0].errors).toBe(0);
        expect(streams[0].events.filter((e) => e.type === 'ping').length).toBeGreaterThanOrEqual(3);
        // Still open: another ping after the idle timeout has passed.
        const seen = streams[0].events.length;
        await eventually(async () => streams[0].events.length, (n) => n > seen, 3_000, 'a ping after the idle timeout');
        expect(streams[0].errors).toBe(0);
        // One closes: its slot is free again.
        streams[0].close();
        await eventually(async () => {
          const ctl = new AbortController();
          const res = await fetch(`${p.baseUrl}/v3/lobbies/default/me/events`, { headers: { 'api-key': p.clientKey, 'x-player-id': 's4' }, signal: ctl.signal });
          ctl.abort();
          return res.status;
        }, (s) => s === 200, 5_000, 'a free slot');
      } finally {
        for (const s of streams) s.close();
      }
    });

    it('afterwards the platform serves normally', async () => {
      const api = client(p.baseUrl, p.clientKey);
      expect((await api.get('/v3/lobbies/default', { 'x-player-id': 'normal' })).status).toBeLessThan(500);
      expect((await api.post('/v3/lobbies/default', { name: 'normal' }, { 'x-player-id': 'normal' })).status).toBe(201);
    });
  });
}

describeSlowClients('standalone', () => startStandalone({ portRange: '31950-31979', env: LIMITS }), true);
describeSlowClients('distributed', () => startDistributed('31980-31999', LIMITS), false);
