// Lobby bench helpers: JSON requests over a keep-alive http.Agent (one socket per in-flight request, reused),
// a bounded-concurrency runner, and lobby setup (hosts create lobbies, members join them).
'use strict';
const http = require('node:http');

/** A keep-alive agent for `maxSockets` concurrent requests (sockets are reused, never re-opened per request). */
function keepAliveAgent(maxSockets) {
  return new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'fifo' });
}

/**
 * One JSON request: resolves { status, body (parsed when JSON), ms } (ms: from send to the last byte).
 * `port` is the platform's; `path` starts with /api.
 */
function request(agent, port, method, path, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const h = { ...headers };
    if (payload) {
      h['content-type'] = 'application/json';
      h['content-length'] = String(payload.length);
    }
    const t0 = performance.now();
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: h, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = performance.now() - t0;
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed = text;
        try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
        resolve({ status: res.statusCode, body: parsed, ms });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs `fn(i)` for i in [0, count) with at most `concurrency` in flight; stops early when `until()` is true. */
async function runPool(count, concurrency, fn, until = () => false) {
  let next = 0;
  async function lane() {
    while (next < count && !until()) await fn(next++);
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  return next;
}

const playerHeaders = (key, playerId) => ({ 'api-key': key, 'x-player-id': playerId });

/**
 * `lobbies` lobbies of `maxPlayers`, each created by host `${prefix}h${i}`; then `membersPerLobby - 1`
 * members `${prefix}m${i}_${j}` join lobby i. Every answer must be 201/200. Returns [{ id, players: [...] }].
 */
async function setupLobbies(port, key, { lobbies, membersPerLobby = 1, maxPlayers = 100, prefix = 'p', concurrency = 32, agent }) {
  const out = new Array(lobbies);
  await runPool(lobbies, concurrency, async (i) => {
    const host = `${prefix}h${i}`;
    const r = await request(agent, port, 'POST', '/api/v3/lobbies/default', { headers: playerHeaders(key, host), body: { maxPlayers } });
    if (r.status !== 201) throw new Error(`create lobby ${i}: ${r.status} ${JSON.stringify(r.body)}`);
    out[i] = { id: r.body.id, players: [host] };
  });
  const joins = lobbies * (membersPerLobby - 1);
  await runPool(joins, concurrency, async (n) => {
    const i = n % lobbies;
    const player = `${prefix}m${i}_${Math.floor(n / lobbies)}`;
    const r = await request(agent, port, 'POST', '/api/v3/lobbies/default/join', { headers: playerHeaders(key, player), body: { lobbyId: out[i].id } });
    if (r.status !== 200) throw new Error(`join ${player} → lobby ${i}: ${r.status} ${JSON.stringify(r.body)}`);
    out[i].players.push(player);
  });
  return out;
}

/** Players in all public lobbies as the read model shows them (GET /v3/lobbies/default, every page). */
async function readModelPlayers(agent, port, key) {
  let players = 0;
  let offset = 0;
  for (;;) {
    const r = await request(agent, port, 'GET', `/api/v3/lobbies/default?limit=100&offset=${offset}`, { headers: { 'api-key': key } });
    if (r.status !== 200) throw new Error(`browse: ${r.status} ${JSON.stringify(r.body)}`);
    for (const l of r.body.lobbies) players += l.players.length;
    if (!r.body.hasMore || r.body.lobbies.length === 0) return players;
    offset += r.body.lobbies.length;
  }
}

/**
 * Waits until the lobbies read model (a projection of the event store, written behind the requests)
 * shows `expected` players; resolves the seconds waited (NaN when it did not within `timeoutMs`).
 */
async function waitForReadModel(agent, port, key, expected, timeoutMs = 120_000) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if ((await readModelPlayers(agent, port, key)) >= expected) return (Date.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 250));
  }
  return NaN;
}

module.exports = { keepAliveAgent, request, runPool, playerHeaders, setupLobbies, readModelPlayers, waitForReadModel };
