// Player identity (auth_config providers) on the player lobby routes, against `npm start`'s process:
// a JWT secret, then Steam through a local stand-in of the Steam Web API (base_url).
import { SignJWT } from 'jose';
import { LocalServer, startFakeSteam } from '../../apps/gateway/src/players/testing/fake-providers';
import { client } from '../support/http';
import { Platform, startStandalone } from '../support/processes';

const SECRET = 'e2e-player-auth-secret-0123456789abcdef';
const jwtFor = (sub: string) => new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(SECRET));

describe('player identity (standalone)', () => {
  jest.setTimeout(120_000);
  let p: Platform;
  let steam: LocalServer;
  let server: ReturnType<typeof client>;
  let clientApi: ReturnType<typeof client>;

  beforeAll(async () => {
    steam = await startFakeSteam({ webApiKey: 'E2E-STEAM-KEY', tickets: { '140000001a2b3c4d': { steamid: '76561197960287930', appid: 480 } } });
    p = await startStandalone({ portRange: '24000-24199' });
    server = client(p.baseUrl, p.serverKey);
    clientApi = client(p.baseUrl, p.clientKey);
  });
  afterAll(async () => {
    await p?.stop();
    await steam?.close();
  });

  it('validates auth_config and never returns its secrets', async () => {
    const bad = await server.post('/v3/projects/settings', { auth_config: { provider: 'jwt', secret: 'short' } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'auth_config', 'secret']);
    expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'steam', web_api_key: 'k' } })).status).toBe(422);
    expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'jwt', secret: SECRET } }, { 'api-key': p.clientKey })).status).toBe(403);

    const set = await server.post('/v3/projects/settings', { auth_config: { provider: 'jwt', secret: SECRET } });
    expect(set.status).toBe(200);
    expect(set.body.auth_config).toEqual({ provider: 'jwt', secret: '********', player_id_claim: 'sub' });
    for (const api of [server, clientApi]) {
      const got = await api.get('/v3/projects/settings');
      expect(got.status).toBe(200);
      expect(got.body.auth_config).toEqual({ provider: 'jwt', secret: '********', player_id_claim: 'sub' });
      expect(JSON.stringify(got.body)).not.toContain(SECRET);
    }
  });

  it('jwt: a player lobby request needs x-player-token naming the x-player-id player', async () => {
    const missing = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'alice' });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ status: 401, error: expect.stringContaining('x-player-token') });

    const bobs = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'alice', 'x-player-token': await jwtFor('bob') });
    expect(bobs.status).toBe(401);
    expect(bobs.body.status).toBe(401);

    const garbage = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'alice', 'x-player-token': 'not-a-jwt' });
    expect(garbage.status).toBe(401);

    const ok = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'alice', 'x-player-token': await jwtFor('alice') });
    expect(ok.status).toBe(201);
    expect(ok.body.host).toBe('alice');
  });

  it('steam: the ticket is checked with the Steam Web API (base_url)', async () => {
    const set = await server.post('/v3/projects/settings', { auth_config: { provider: 'steam', app_id: 480, web_api_key: 'E2E-STEAM-KEY', base_url: steam.url } });
    expect(set.status).toBe(200);
    expect(set.body.auth_config).toEqual({ provider: 'steam', app_id: 480, web_api_key: '********', base_url: steam.url });

    const steamId = '76561197960287930';
    const invalid = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': steamId, 'x-player-token': 'ffff' });
    expect(invalid.status).toBe(401);
    const someoneElse = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': '76561197960287999', 'x-player-token': '140000001a2b3c4d' });
    expect(someoneElse.status).toBe(401);
    const ok = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': steamId, 'x-player-token': '140000001a2b3c4d' });
    expect(ok.status).toBe(201);
    expect(ok.body.host).toBe(steamId);
    const tickets = steam.requests.filter((r) => r.url.startsWith('/ISteamUserAuth/AuthenticateUserTicket/v1/'));
    expect(tickets.length).toBeGreaterThanOrEqual(2);
    expect(new URL(tickets.at(-1)!.url, 'http://x').searchParams.get('appid')).toBe('480');
  });

  it('none: no token needed again', async () => {
    expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'none' } })).status).toBe(200);
    expect((await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'carol' })).status).toBe(201);
  });
});
