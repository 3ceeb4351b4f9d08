// Outbound identity calls (Steam, PlayFab, a JWKS URL) as CLIENT spans of the request that verifies the
// player, against the local stand-ins: provider, host and status, never the URL (Steam's holds the key).
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { installTracing, type TracingHarness } from '../../../../libs/messaging/src/testing/tracing-harness';
import { JwtVerifier } from './jwt-verifier';
import { verifyPlayFabTicket } from './playfab-verifier';
import { verifySteamTicket } from './steam-verifier';
import { LocalServer, startFakePlayFab, startFakeSteam, startJwksServer } from './testing/fake-providers';

describe('identity provider calls as spans', () => {
  let steam: LocalServer;
  let playfab: LocalServer;
  let jwks: LocalServer;
  let keys: CryptoKeyPair;
  let tracing: TracingHarness;

  beforeAll(async () => {
    steam = await startFakeSteam({ webApiKey: 'steam-key-secret', tickets: { abcd: { steamid: '76561198000000001', appid: 480 } } });
    playfab = await startFakePlayFab({ titleId: 'AB12C', secretKey: 'title-secret', tickets: { 'ticket-alice': { playFabId: 'A1B2C3D4E5F60708', titleId: 'AB12C' } } });
    keys = await generateKeyPair('RS256');
    jwks = await startJwksServer({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] });
  });
  afterAll(async () => {
    await Promise.all([steam?.close(), playfab?.close(), jwks?.close()]);
  });
  beforeEach(() => { tracing = installTracing(); });
  afterEach(() => tracing.dispose());

  const inTrace = (fn: () => Promise<unknown>) => trace.getTracer('test').startActiveSpan('request', async (span) => {
    try {
      await fn();
      return span.spanContext().spanId;
    } finally {
      span.end();
    }
  });
  const clientSpans = () => tracing.exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);

  it('records each provider call under the request, with its provider, host and status', async () => {
    const parent = await inTrace(async () => {
      await verifySteamTicket({ provider: 'steam', app_id: 480, web_api_key: 'steam-key-secret', base_url: steam.url }, 'abcd');
      await verifyPlayFabTicket({ provider: 'playfab', title_id: 'AB12C', secret_key: 'title-secret', base_url: playfab.url }, 'nope').catch(() => undefined);
      const token = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setExpirationTime('5m').sign(keys.privateKey);
      await new JwtVerifier().verify({ provider: 'jwt', jwks_url: jwks.url }, token);
    });
    const spans = clientSpans();
    expect(spans.map((s) => [s.name, s.attributes['http.response.status_code']])).toEqual([['GET Steam', 200], ['POST PlayFab', 400], ['GET JWKS', 200]]);
    for (const span of spans) {
      expect(span.parentSpanContext?.spanId).toBe(parent);
      expect(span.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'url.scheme': 'http' });
    }
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]))).not.toContain('steam-key-secret');
  });

  it('marks a call the provider never answers', async () => {
    await inTrace(() => verifySteamTicket({ provider: 'steam', app_id: 480, web_api_key: 'k', base_url: 'http://127.0.0.1:1' }, 'abcd').catch(() => undefined));
    const [span] = clientSpans();
    expect(span.name).toBe('GET Steam');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('opens none outside a trace', async () => {
    await verifySteamTicket({ provider: 'steam', app_id: 480, web_api_key: 'steam-key-secret', base_url: steam.url }, 'abcd');
    expect(clientSpans()).toEqual([]);
  });
});
