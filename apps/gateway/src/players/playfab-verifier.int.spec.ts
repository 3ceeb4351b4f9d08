// Against a local stand-in of PlayFab's server API answering with the documented shapes.
import { IdentityRejected, ProviderUnavailable } from './errors';
import { PlayFabAuthConfig, playFabBaseUrl, verifyPlayFabTicket } from './playfab-verifier';
import { LocalServer, startFakePlayFab, startLocalServer, startSilentServer } from './testing/fake-providers';

describe('verifyPlayFabTicket', () => {
  let playfab: LocalServer;
  let config: PlayFabAuthConfig;

  beforeAll(async () => {
    playfab = await startFakePlayFab({
      titleId: 'AB12C', secretKey: 'title-secret',
      tickets: {
        'ticket-alice': { playFabId: 'A1B2C3D4E5F60708', titleId: 'AB12C' },
        'ticket-old': { playFabId: 'A1B2C3D4E5F60708', titleId: 'AB12C', expired: true },
        'ticket-other-title': { playFabId: '0F0E0D0C0B0A0908', titleId: 'ZZ999' },
      },
    });
    config = { provider: 'playfab', title_id: 'AB12C', secret_key: 'title-secret', base_url: `${playfab.url}/` };
  });
  afterAll(async () => {
    await playfab?.close();
  });

  it('defaults to the title\'s own PlayFab host', () => {
    expect(playFabBaseUrl({ provider: 'playfab', title_id: 'AB12C', secret_key: 's' })).toBe('https://AB12C.playfabapi.com');
  });

  it('identifies the player of a valid ticket by PlayFabId, sending the secret key and the ticket', async () => {
    await expect(verifyPlayFabTicket(config, 'ticket-alice')).resolves.toEqual({ playerId: 'A1B2C3D4E5F60708' });
    const seen = playfab.requests.at(-1)!;
    expect(seen).toMatchObject({ method: 'POST', url: '/Server/AuthenticateSessionTicket' });
    expect(seen.headers['x-secretkey']).toBe('title-secret');
    expect(seen.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen.body)).toEqual({ SessionTicket: 'ticket-alice' });
  });

  it('rejects an invalid ticket with PlayFab\'s reason', async () => {
    await expect(verifyPlayFabTicket(config, 'made-up')).rejects.toThrow(new IdentityRejected('PlayFab rejected the session ticket (InvalidSessionTicket: Invalid session ticket)'));
  });

  it('rejects a ticket of another title', async () => {
    await expect(verifyPlayFabTicket(config, 'ticket-other-title')).rejects.toBeInstanceOf(IdentityRejected);
  });

  it('rejects an expired ticket', async () => {
    await expect(verifyPlayFabTicket(config, 'ticket-old')).rejects.toThrow('The PlayFab session ticket has expired');
  });

  it('rejects when PlayFab refuses the secret key', async () => {
    await expect(verifyPlayFabTicket({ ...config, secret_key: 'wrong' }, 'ticket-alice')).rejects.toThrow(/PlayFab refused the title's secret key \(NotAuthenticated/);
  });

  it('is unavailable when PlayFab times out, is unreachable, fails or answers nonsense', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      await expect(verifyPlayFabTicket({ ...config, base_url: silent.url }, 'ticket-alice', 300)).rejects.toThrow(new ProviderUnavailable('PlayFab did not answer within 300 ms'));
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await silent.close();
    }
    const gone = await startLocalServer(() => undefined);
    await gone.close();
    await expect(verifyPlayFabTicket({ ...config, base_url: gone.url }, 'ticket-alice')).rejects.toThrow(new ProviderUnavailable('PlayFab could not be reached'));

    const failing = await startLocalServer((_req, _body, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":503,"status":"ServiceUnavailable","error":"ServiceUnavailable","errorCode":1123}'));
    const nonsense = await startLocalServer((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"code":200,"status":"OK","data":{}}'));
    try {
      await expect(verifyPlayFabTicket({ ...config, base_url: failing.url }, 'ticket-alice')).rejects.toThrow(new ProviderUnavailable('PlayFab answered HTTP 503'));
      await expect(verifyPlayFabTicket({ ...config, base_url: nonsense.url }, 'ticket-alice')).rejects.toBeInstanceOf(ProviderUnavailable);
    } finally {
      await failing.close();
      await nonsense.close();
    }
  });
});
