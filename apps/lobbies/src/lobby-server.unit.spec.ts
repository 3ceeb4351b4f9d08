import { DEFAULT_LOBBY_CONFIG, resolveLobbyConfig } from '@spawnpoint/domain';
import { DEFAULT_LOBBY_SERVER_TTL, lobbyServerStart } from './lobby-server';

describe("a lobby's game server start", () => {
  const lobbyId = '6f1c1c8e-5f8a-4c39-9d53-0b8f0f7d2a11';

  it('given a config without a ttl, the server gets the default ttl of 3600 s', () => {
    expect(DEFAULT_LOBBY_SERVER_TTL).toBe(3600);
    const req = lobbyServerStart('p1', 'pro', lobbyId, 'eu-west', DEFAULT_LOBBY_CONFIG);
    expect(req).toEqual({
      projectId: 'p1', plan: 'pro',
      body: expect.objectContaining({
        name: `lobby-${lobbyId}`, region: 'eu-west', version_tag: 'default', compute_size: 'small', ttl: 3600,
        custom_data: { lobby_id: lobbyId, lobby_config: 'default' }, match_id: lobbyId,
      }),
    });
  });

  it("given a config with serverSettings.ttl, the server gets the config's ttl", () => {
    const config = resolveLobbyConfig([{ name: 'ranked', serverSettings: { ttl: 900, compute_size: 'medium' } }], 'ranked');
    expect(lobbyServerStart('p1', 'pro', lobbyId, 'us-east', config).body).toMatchObject({ ttl: 900, compute_size: 'medium', version_tag: 'default' });
  });
});
