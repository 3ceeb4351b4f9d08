// Player identity (auth_config providers) on the player lobby routes, in both modes (`npm start`'s process,
// and services + gateway over NATS): a JWT secret, a JWKS URL with issuer/audience/player_id_claim, Steam and
// PlayFab through local stand-ins of their Web APIs (base_url), the event stream's query token.
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { LocalServer, startFakePlayFab, startFakeSteam, startJwksServer } from '../../apps/gateway/src/players/testing/fake-providers';
import { client } from '../support/http';
import { Platform, startDistributed, startStandalone } from '../support/processes';

const SECRET = 'e2e-player-auth-secret-0123456789abcdef';
const jwtFor = (sub: string) => new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(SECRET));

function describePlayerAuth(mode: string, start: () => Promise<Platform>) {
  describe(`player identity (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let steam: LocalServer;
    let playfab: LocalServer;
    let server: ReturnType<typeof client>;
    let clientApi: ReturnType<typeof client>;

    beforeAll(async () => {
      steam = await startFakeSteam({ webApiKey: 'E2E-STEAM-KEY', tickets: { '140000001a2b3c4d': { steamid: '76561197960287930', appid: 480 } } });
      playfab = await startFakePlayFab({
        titleId: 'E2E1', secretKey: 'E2E-PLAYFAB-SECRET',
        tickets: { 'ticket-frank': { playFabId: 'F1A2B3C4D5E6F708', titleId: 'E2E1' }, 'ticket-other-title': { playFabId: 'AAAABBBBCCCCDDDD', titleId: 'OTHER' } },
      });
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      clientApi = client(p.baseUrl, p.clientKey);
    });
    afterAll(async () => {
      await p?.stop();
      await steam?.close();
      await playfab?.close();
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

    it('jwt: the event stream takes the token as a query parameter (a browser EventSource sends no headers)', async () => {
      expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'jwt', secret: SECRET } })).status).toBe(200);
      const url = (q: string) => `${p.baseUrl}/v3/lobbies/default/me/events?api_key=${p.clientKey}&player_id=alice${q}`;
      const without = await fetch(url(''));
      expect(without.status).toBe(401);
      const other = await fetch(url(`&player_token=${await jwtFor('bob')}`));
      expect(other.status).toBe(401);
      const controller = new AbortController();
      const ok = await fetch(url(`&player_token=${await jwtFor('alice')}`), { signal: controller.signal });
      try {
        expect(ok.status).toBe(200);
        expect(ok.headers.get('content-type')).toContain('text/event-stream');
        const first = new TextDecoder().decode((await ok.body!.getReader().read()).value);
        expect(first).toContain('event: connected');
      } finally {
        controller.abort();
      }
    });

    it('jwt with a JWKS URL: the signature by the published key, issuer, audience and player_id_claim all count', async () => {
      const { privateKey, publicKey } = await generateKeyPair('RS256');
      const jwks = await startJwksServer({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
      try {
        const set = await server.post('/v3/projects/settings', {
          auth_config: { provider: 'jwt', jwks_url: jwks.url, issuer: 'https://auth.e2e', audience: 'game', player_id_claim: 'player_id' },
        });
        expect(set.status).toBe(200);
        const token = (claims: Record<string, unknown>, key = privateKey) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer(String(claims.iss ?? 'https://auth.e2e')).setAudience(String(claims.aud ?? 'game')).setIssuedAt().setExpirationTime('10m').sign(key);
        const as = async (claims: Record<string, unknown>, key = privateKey) => clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'dave', 'x-player-token': await token(claims, key) });
        expect((await as({ player_id: 'dave', aud: 'another-game' })).status).toBe(401);
        expect((await as({ player_id: 'dave', iss: 'https://evil.e2e' })).status).toBe(401);
        expect((await as({ sub: 'dave' })).status).toBe(401); // the id is in player_id, not sub
        expect((await as({ player_id: 'dave' }, (await generateKeyPair('RS256')).privateKey)).status).toBe(401); // not the published key
        const ok = await as({ player_id: 'dave' });
        expect(ok.status).toBe(201);
        expect(ok.body.host).toBe('dave');
      } finally {
        await jwks.close();
      }
    });

    it('playfab: the session ticket is checked with the title\'s PlayFab API (base_url, X-SecretKey)', async () => {
      const set = await server.post('/v3/projects/settings', { auth_config: { provider: 'playfab', title_id: 'E2E1', secret_key: 'E2E-PLAYFAB-SECRET', base_url: playfab.url } });
      expect(set.status).toBe(200);
      expect(set.body.auth_config).toEqual({ provider: 'playfab', title_id: 'E2E1', secret_key: '********', base_url: playfab.url });
      // the mask read back and posted again is refused, and the stored secret still works afterwards
      expect((await server.post('/v3/projects/settings', { auth_config: set.body.auth_config })).status).toBe(422);
      const frank = 'F1A2B3C4D5E6F708';
      expect((await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': frank, 'x-player-token': 'ticket-other-title' })).status).toBe(401);
      expect((await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'AAAABBBBCCCCDDDD', 'x-player-token': 'ticket-frank' })).status).toBe(401);
      const ok = await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': frank, 'x-player-token': 'ticket-frank' });
      expect(ok.status).toBe(201);
      expect(ok.body.host).toBe(frank);
      expect(playfab.requests.some((r) => r.url === '/Server/AuthenticateSessionTicket')).toBe(true);
    });

    it('none: no token needed again', async () => {
      expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'none' } })).status).toBe(200);
      expect((await clientApi.post('/v3/lobbies/default', {}, { 'x-player-id': 'carol' })).status).toBe(201);
    });
  });
}

describePlayerAuth('standalone', () => startStandalone({ portRange: '24000-24199' }));
describePlayerAuth('distributed', () => startDistributed('25200-25299'));
