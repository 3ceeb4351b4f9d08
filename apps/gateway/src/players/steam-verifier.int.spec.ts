// Against a local stand-in of the Steam Web API answering with the documented shapes.
import { IdentityRejected, ProviderUnavailable } from './errors';
import { SteamAuthConfig, steamTicketUrl, verifySteamTicket } from './steam-verifier';
import { LocalServer, startFakeSteam, startLocalServer, startSilentServer } from './testing/fake-providers';

describe('verifySteamTicket', () => {
  let steam: LocalServer;
  let config: SteamAuthConfig;

  beforeAll(async () => {
    steam = await startFakeSteam({
      webApiKey: 'WEBAPIKEY0123456789',
      tickets: {
        '14000000aabbccdd': { steamid: '76561197960287930', appid: 480 },
        '14000000deadbeef': { steamid: '76561197960287931', appid: 730 },
      },
    });
    config = { provider: 'steam', app_id: 480, web_api_key: 'WEBAPIKEY0123456789', base_url: steam.url };
  });
  afterAll(async () => {
    await steam?.close();
  });

  it('defaults to api.steampowered.com and sends key, appid and ticket', () => {
    const url = new URL(steamTicketUrl({ provider: 'steam', app_id: '480', web_api_key: 'K&Y' }, 'abc'));
    expect(`${url.origin}${url.pathname}`).toBe('https://api.steampowered.com/ISteamUserAuth/AuthenticateUserTicket/v1/');
    expect(Object.fromEntries(url.searchParams)).toEqual({ key: 'K&Y', appid: '480', ticket: 'abc' });
  });

  it('identifies the player of a valid ticket by steamid', async () => {
    await expect(verifySteamTicket(config, '14000000aabbccdd')).resolves.toEqual({ playerId: '76561197960287930' });
    await expect(verifySteamTicket({ ...config, app_id: '480' }, '14000000aabbccdd')).resolves.toEqual({ playerId: '76561197960287930' });
    expect(steam.requests.at(-1)!.method).toBe('GET');
  });

  it('rejects an invalid ticket with Steam\'s reason', async () => {
    await expect(verifySteamTicket(config, '00')).rejects.toThrow(new IdentityRejected('Steam rejected the ticket (101: Invalid ticket)'));
  });

  it('rejects a ticket issued for another app', async () => {
    await expect(verifySteamTicket(config, '14000000deadbeef')).rejects.toBeInstanceOf(IdentityRejected);
  });

  it('rejects when Steam refuses the web API key, without the key in the message', async () => {
    const err = await verifySteamTicket({ ...config, web_api_key: 'WRONGKEY' }, '14000000aabbccdd').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IdentityRejected);
    expect((err as Error).message).toBe('Steam refused the project\'s web_api_key or app_id (HTTP 403)');
  });

  it('rejects a result other than OK', async () => {
    const odd = await startLocalServer((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"response":{"params":{"result":"Denied","steamid":"1"}}}'));
    try {
      await expect(verifySteamTicket({ ...config, base_url: odd.url }, 'x')).rejects.toThrow('Steam did not accept the ticket (result Denied)');
    } finally {
      await odd.close();
    }
  });

  it('is unavailable when Steam times out, is unreachable or fails', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      await expect(verifySteamTicket({ ...config, base_url: silent.url }, 'x', 300)).rejects.toThrow(new ProviderUnavailable('Steam did not answer within 300 ms'));
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await silent.close();
    }
    const gone = await startLocalServer(() => undefined);
    await gone.close();
    await expect(verifySteamTicket({ ...config, base_url: gone.url }, 'x')).rejects.toThrow(new ProviderUnavailable('Steam could not be reached'));
    const failing = await startLocalServer((_req, _body, res) => res.writeHead(502).end('<html>Bad gateway</html>'));
    try {
      await expect(verifySteamTicket({ ...config, base_url: failing.url }, 'x')).rejects.toThrow(new ProviderUnavailable('Steam answered HTTP 502'));
    } finally {
      await failing.close();
    }
  });
});
