// Lobbies (v3) in both modes (test/e2e/lobbies.ts), and what survives a standalone restart.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client } from '../support/http';
import { startDistributed, startStandalone } from '../support/processes';
import { describeLobbies } from './lobbies';

// `ping` every second (30 s by default) so that a test can see one arrive.
const PING = { SPAWNPOINT_LOBBY_PING_MS: '1000' };
describeLobbies('standalone', () => startStandalone({ portRange: '24200-24399', env: PING }));
// Two gateways and two lobbies services: every guarantee must hold whichever replica serves a request.
describeLobbies('distributed', () => startDistributed('24400-24599', PING, { gateways: 2, extraServices: ['lobbies'] }));

describe('lobbies v3 after a standalone restart', () => {
  jest.setTimeout(180_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-lobbies-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps who is in which lobby, and invite codes (they live in the event store)', async () => {
    const first = await startStandalone({ dataDir });
    const api = client(first.baseUrl, first.clientKey);
    const priv = await api.post('/v3/lobbies/default', { isPrivate: true }, { 'x-player-id': 'hana' });
    expect(priv.status).toBe(201);
    expect((await api.post('/v3/lobbies/default/join', { code: priv.body.code }, { 'x-player-id': 'ivan' })).status).toBe(200);
    expect((await api.delete('/v3/lobbies/default/me', { 'x-player-id': 'ivan' })).status).toBe(200);
    await first.stop();

    const second = await startStandalone({ dataDir });
    try {
      const again = client(second.baseUrl, second.clientKey);
      const mine = await again.get('/v3/lobbies/default/me', { 'x-player-id': 'hana' });
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({ id: priv.body.id, host: 'hana', currentPlayers: 1 });
      expect((await again.get('/v3/lobbies/default/me', { 'x-player-id': 'ivan' })).status).toBe(404);
      expect((await again.post('/v3/lobbies/default', {}, { 'x-player-id': 'hana' })).status).toBe(409);
      expect((await again.post('/v3/lobbies/default/join', { code: priv.body.code }, { 'x-player-id': 'ivan' })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
