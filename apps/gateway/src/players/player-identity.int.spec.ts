// PlayerIdentity over a stand-in bus (the projects service's projects.authConfig) and local providers.
import { SignJWT } from 'jose';
import { Bus, RemoteError } from '@spawnpoint/messaging';
import { SUBJECTS } from '@spawnpoint/proto';
import { PlayerIdentity } from './player-identity';
import { LocalServer, startFakeSteam, startSilentServer } from './testing/fake-providers';

const SECRET = 'a-test-secret-of-at-least-32-characters!';

function fakeBus(configs: Record<string, unknown>) {
  const calls: unknown[] = [];
  const bus = {
    request: jest.fn(async (subject: string, payload: { projectId: string }) => {
      expect(subject).toBe(SUBJECTS.projects.authConfig);
      calls.push(payload);
      return configs[payload.projectId];
    }),
  };
  return { bus: bus as unknown as Bus, calls };
}

const hs256 = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));

async function failure(p: Promise<unknown>): Promise<RemoteError['body']> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(RemoteError);
  return (err as RemoteError).body;
}

describe('PlayerIdentity', () => {
  let steam: LocalServer;
  let silent: LocalServer;
  let now: number;
  let configs: Record<string, unknown>;
  let bus: ReturnType<typeof fakeBus>;
  let identity: PlayerIdentity;

  beforeAll(async () => {
    steam = await startFakeSteam({ webApiKey: 'KEY', tickets: { 'ticket-alice': { steamid: '76561197960287930', appid: 480 } } });
    silent = await startSilentServer();
  });
  afterAll(async () => {
    await steam?.close();
    await silent?.close();
  });
  beforeEach(() => {
    now = Date.now();
    configs = {
      open: { provider: 'none' },
      jwt: { provider: 'jwt', secret: SECRET, player_id_claim: 'sub' },
      steam: { provider: 'steam', app_id: 480, web_api_key: 'KEY', base_url: steam.url },
      down: { provider: 'steam', app_id: 480, web_api_key: 'KEY', base_url: silent.url },
      broken: { provider: 'jwt' },
    };
    bus = fakeBus(configs);
    identity = new PlayerIdentity(bus.bus, { providerTimeoutMs: 300, now: () => now });
  });

  it('lets any request through when the provider is none (no token needed)', async () => {
    await expect(identity.verify('open', 'alice', undefined)).resolves.toBeUndefined();
  });

  it('requires x-player-token when a provider is configured', async () => {
    expect(await failure(identity.verify('jwt', 'alice', undefined))).toMatchObject({ status: 401, error: expect.stringMatching(/^Missing x-player-token header/) });
    expect(await failure(identity.verify('jwt', 'alice', ''))).toMatchObject({ status: 401 });
  });

  it('accepts a token of the named player and refuses another player\'s or an invalid one', async () => {
    const alice = await hs256({ sub: 'alice', exp: Math.floor(now / 1000) + 600 });
    await expect(identity.verify('jwt', 'alice', alice)).resolves.toBeUndefined();
    expect(await failure(identity.verify('jwt', 'bob', alice))).toEqual({ status: 401, error: 'x-player-token does not belong to the player named by x-player-id' });
    expect(await failure(identity.verify('jwt', 'alice', 'garbage'))).toEqual({ status: 401, error: 'Invalid player token', detail: 'The token is not a valid JWT' });
    expect(await failure(identity.verify('jwt', 'alice', 'x'.repeat(20_000)))).toMatchObject({ status: 401, error: 'Invalid player token' });
  });

  it('verifies Steam tickets once, then from the cache for 60 s', async () => {
    await identity.verify('steam', '76561197960287930', 'ticket-alice');
    await identity.verify('steam', '76561197960287930', 'ticket-alice');
    expect(steam.requests).toHaveLength(1);
    expect(await failure(identity.verify('steam', 'mallory', 'ticket-alice'))).toMatchObject({ status: 401 });
    expect(steam.requests).toHaveLength(1);
    now += 60_001;
    await identity.verify('steam', '76561197960287930', 'ticket-alice');
    expect(steam.requests).toHaveLength(2);
    expect(await failure(identity.verify('steam', '76561197960287930', 'ticket-bad'))).toMatchObject({ status: 401, detail: 'Steam rejected the ticket (101: Invalid ticket)' });
  });

  it('never keeps a JWT beyond its exp', async () => {
    const exp = Math.floor(now / 1000) + 10;
    const token = await hs256({ sub: 'alice', exp });
    await identity.verify('jwt', 'alice', token);
    now = exp * 1000 + 30_000; // past exp (and jose's tolerance), well within 60 s
    expect(await failure(identity.verify('jwt', 'alice', token))).toMatchObject({ status: 401, detail: 'The token has expired' });
  });

  it('answers 503 when the provider does not answer', async () => {
    expect(await failure(identity.verify('down', '76561197960287930', 'ticket-alice')))
      .toEqual({ status: 503, error: 'Player identity provider unavailable (steam)', detail: 'Steam did not answer within 300 ms' });
  });

  it('fails closed on a stored auth_config it cannot use', async () => {
    expect(await failure(identity.verify('broken', 'alice', 'anything'))).toMatchObject({ status: 401, error: expect.stringMatching(/auth_config is invalid/) });
  });

  it('keeps the auth_config 5 s, and forgets it on demand', async () => {
    await identity.verify('open', 'alice', undefined);
    await identity.verify('open', 'alice', undefined);
    expect(bus.calls).toHaveLength(1);
    configs.open = { provider: 'jwt', secret: SECRET };
    await identity.verify('open', 'alice', undefined); // still the cached none
    now += 5_001;
    expect(await failure(identity.verify('open', 'alice', undefined))).toMatchObject({ status: 401 });
    configs.open = { provider: 'none' };
    identity.forget('open');
    await expect(identity.verify('open', 'alice', undefined)).resolves.toBeUndefined();
    expect(bus.calls).toHaveLength(3);
  });

  it('does not reuse a verification after the provider config changed', async () => {
    const token = await hs256({ sub: 'alice' });
    await identity.verify('jwt', 'alice', token);
    configs.jwt = { provider: 'jwt', secret: 'another-secret-of-at-least-32-characters', player_id_claim: 'sub' };
    identity.forget('jwt');
    expect(await failure(identity.verify('jwt', 'alice', token))).toMatchObject({ status: 401, detail: 'The token signature is not valid' });
  });
});
