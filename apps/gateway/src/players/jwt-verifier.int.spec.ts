// JWTs signed with keys published on a local JWKS endpoint (RS256 and ES256), and HS256 end to end.
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { IdentityRejected, ProviderUnavailable } from './errors';
import { JwtVerifier } from './jwt-verifier';
import { LocalServer, startJwksServer, startLocalServer, startSilentServer } from './testing/fake-providers';

describe('JwtVerifier with a JWKS URL', () => {
  let jwks: LocalServer & { jwks: { keys: unknown[] } };
  let rsa: CryptoKeyPair;
  let ec: CryptoKeyPair;
  let stranger: CryptoKeyPair;

  beforeAll(async () => {
    rsa = await generateKeyPair('RS256');
    ec = await generateKeyPair('ES256');
    stranger = await generateKeyPair('RS256');
    jwks = await startJwksServer({
      keys: [
        { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
        { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
      ],
    });
  });
  afterAll(async () => {
    await jwks?.close();
  });

  const sign = (claims: Record<string, unknown>, key: CryptoKey, alg: string, kid: string) =>
    new SignJWT(claims).setProtectedHeader({ alg, kid }).setIssuedAt().setExpirationTime('10m').sign(key);

  it('verifies RS256 and ES256 tokens with keys fetched once and cached', async () => {
    const verifier = new JwtVerifier();
    const config = { provider: 'jwt' as const, jwks_url: `${jwks.url}/.well-known/jwks.json`, issuer: 'https://auth.example', player_id_claim: 'sub' };
    const claims = { sub: 'alice', iss: 'https://auth.example' };
    await expect(verifier.verify(config, await sign(claims, rsa.privateKey, 'RS256', 'rsa-1'))).resolves.toMatchObject({ playerId: 'alice' });
    await expect(verifier.verify(config, await sign({ ...claims, sub: 'bob' }, ec.privateKey, 'ES256', 'ec-1'))).resolves.toMatchObject({ playerId: 'bob' });
    expect(jwks.requests).toHaveLength(1);
    await expect(verifier.verify(config, await sign({ ...claims, iss: 'https://evil.example' }, rsa.privateKey, 'RS256', 'rsa-1'))).rejects.toThrow(/"iss" claim/);
  });

  it('rejects a token signed by a key that is not in the set', async () => {
    const verifier = new JwtVerifier();
    const config = { provider: 'jwt' as const, jwks_url: jwks.url };
    await expect(verifier.verify(config, await sign({ sub: 'alice' }, stranger.privateKey, 'RS256', 'unknown-kid'))).rejects.toThrow(new IdentityRejected('No key of the JWKS matches the token'));
    // Same kid as a published key, wrong key: a bad signature.
    await expect(verifier.verify(config, await sign({ sub: 'alice' }, stranger.privateKey, 'RS256', 'rsa-1'))).rejects.toThrow('The token signature is not valid');
  });

  it('does not accept an HS256 token when the project uses a JWKS', async () => {
    const verifier = new JwtVerifier();
    const hs = await new SignJWT({ sub: 'alice' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)));
    await expect(verifier.verify({ provider: 'jwt', jwks_url: jwks.url }, hs)).rejects.toBeInstanceOf(IdentityRejected);
  });

  it('says the provider is unavailable when the JWKS URL is unreachable, times out or is not a key set', async () => {
    const token = await sign({ sub: 'alice' }, rsa.privateKey, 'RS256', 'rsa-1');
    const gone = await startLocalServer(() => undefined);
    const goneUrl = gone.url;
    await gone.close();
    await expect(new JwtVerifier().verify({ provider: 'jwt', jwks_url: goneUrl }, token)).rejects.toBeInstanceOf(ProviderUnavailable);

    const silent = await startSilentServer();
    try {
      const started = Date.now();
      await expect(new JwtVerifier({ timeoutMs: 300 }).verify({ provider: 'jwt', jwks_url: silent.url }, token)).rejects.toThrow(new ProviderUnavailable('The JWKS URL did not answer in time'));
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await silent.close();
    }

    const broken = await startLocalServer((_req, _body, res) => res.writeHead(500).end('oops'));
    try {
      await expect(new JwtVerifier().verify({ provider: 'jwt', jwks_url: broken.url }, token)).rejects.toBeInstanceOf(ProviderUnavailable);
    } finally {
      await broken.close();
    }
  });
});
