// The SDK against a local HTTP server: the token header, bodies, retries of transient failures, the
// Error body on a refusal, the claim watch, and the environment it reads.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GameServer, GameServerError } from '.';

const ID = '0b4f2a63-5c3e-4d8e-9a51-2f1c7e0d9b44';
const TOKEN = `spt_${ID}_${'a'.repeat(43)}`;

interface Seen { method: string; url: string; auth: string | undefined; body: string }

async function serve(answer: (req: Seen, n: number) => { status: number; body: unknown; headers?: Record<string, string> }) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, auth: req.headers.authorization, body };
      seen.push(s);
      const a = answer(s, seen.length);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  return { url, seen, close: () => new Promise((r) => server.close(r)) };
}

describe('GameServer', () => {
  it('sends the token and the report, and answers the server', async () => {
    const s = await serve(() => ({ status: 200, body: { instance_id: ID, game: { players: 3 } } }));
    try {
      const game = new GameServer({ apiUrl: `${s.url}/`, token: TOKEN });
      expect(game.serverId).toBe(ID);
      expect((await game.setPlayers(3)).game).toEqual({ players: 3 });
      await game.health('degraded', 'lag');
      await game.ready();
      await game.requestStop();
      await game.match();
      expect(s.seen.map((x) => `${x.method} ${x.url} ${x.body}`)).toEqual([
        'PUT /api/v3/game/status {"players":3}',
        'PUT /api/v3/game/status {"health":"degraded","message":"lag"}',
        'POST /api/v3/game/ready ',
        'POST /api/v3/game/stop ',
        'GET /api/v3/game/match ',
      ]);
      expect(new Set(s.seen.map((x) => x.auth))).toEqual(new Set([`Bearer ${TOKEN}`]));
    } finally {
      await s.close();
    }
  });

  it('retries 503 and 429 (after Retry-After), then succeeds', async () => {
    const s = await serve((_, n) => (n === 1 ? { status: 503, body: { error: 'busy', status: 503 } }
      : n === 2 ? { status: 429, body: { error: 'slow down', status: 429 }, headers: { 'retry-after': '1' } } : { status: 200, body: { instance_id: ID } }));
    try {
      const started = Date.now();
      expect((await new GameServer({ apiUrl: s.url, token: TOKEN }).self()).instance_id).toBe(ID);
      expect(s.seen).toHaveLength(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await s.close();
    }
  });

  it('throws the Error body of a refusal at once (401: the server stopped)', async () => {
    const s = await serve(() => ({ status: 401, body: { error: 'Server token no longer valid: the server is stopped', status: 401 } }));
    try {
      const err = await new GameServer({ apiUrl: s.url, token: TOKEN }).self().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GameServerError);
      expect((err as GameServerError).status).toBe(401);
      expect((err as GameServerError).body.error).toMatch(/stopped/);
      expect(s.seen).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('watchClaim polls until the pool server is claimed', async () => {
    const s = await serve((_, n) => ({ status: 200, body: { instance_id: ID, is_pool_server: true, pool_claimed_at: n < 3 ? null : '2026-11-26T00:00:00Z', name: n < 3 ? 'pool-us-east' : 'duel' } }));
    try {
      const claimed = await new GameServer({ apiUrl: s.url, token: TOKEN }).watchClaim({ intervalMs: 10 });
      expect(claimed.name).toBe('duel');
      expect(s.seen).toHaveLength(3);
    } finally {
      await s.close();
    }
  });

  it('fromEnv reads the platform variables, and is null outside Spawnpoint', () => {
    expect(GameServer.fromEnv({})).toBeNull();
    const game = GameServer.fromEnv({ SPAWNPOINT_API_URL: 'http://gw/api', SPAWNPOINT_SERVER_TOKEN: TOKEN, SPAWNPOINT_SERVER_ID: ID });
    expect(game).toMatchObject({ apiUrl: 'http://gw/api', serverId: ID });
  });
});
