// HS256 tokens need no network: the JWKS (RS256/ES256) cases are in jwt-verifier.int.spec.ts.
import { SignJWT } from 'jose';
import { IdentityRejected } from './errors';
import { JwtAuthConfig, JwtVerifier } from './jwt-verifier';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const key = new TextEncoder().encode(SECRET);
const now = () => Math.floor(Date.now() / 1000);

async function hs256(claims: Record<string, unknown>, options: { secret?: Uint8Array; alg?: string } = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: options.alg ?? 'HS256' }).sign(options.secret ?? key);
}

describe('JwtVerifier (HS256 with secret)', () => {
  const verifier = new JwtVerifier();
  const config: JwtAuthConfig = { provider: 'jwt', secret: SECRET, player_id_claim: 'sub' };

  it('accepts a valid token and names the player by sub, with the exp as the expiry', async () => {
    const exp = now() + 600;
    await expect(verifier.verify(config, await hs256({ sub: 'alice', exp }))).resolves.toEqual({ playerId: 'alice', expiresAt: exp * 1000 });
  });

  it('accepts a token without exp (no expiry of its own)', async () => {
    await expect(verifier.verify(config, await hs256({ sub: 'alice' }))).resolves.toEqual({ playerId: 'alice', expiresAt: undefined });
  });

  it('rejects an expired token', async () => {
    await expect(verifier.verify(config, await hs256({ sub: 'alice', exp: now() - 60 }))).rejects.toThrow(new IdentityRejected('The token has expired'));
  });

  it('rejects a token not valid yet', async () => {
    await expect(verifier.verify(config, await hs256({ sub: 'alice', nbf: now() + 600 }))).rejects.toBeInstanceOf(IdentityRejected);
  });

  it('rejects a bad signature', async () => {
    const other = new TextEncoder().encode('another-secret-of-at-least-32-characters');
    await expect(verifier.verify(config, await hs256({ sub: 'alice' }, { secret: other }))).rejects.toThrow('The token signature is not valid');
  });

  it('rejects a tampered payload', async () => {
    const [h, , s] = (await hs256({ sub: 'alice' })).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'bob' })).toString('base64url')}.${s}`;
    await expect(verifier.verify(config, forged)).rejects.toThrow('The token signature is not valid');
  });

  it('rejects other algorithms than HS256, and alg none', async () => {
    await expect(verifier.verify(config, await hs256({ sub: 'alice' }, { alg: 'HS512' }))).rejects.toThrow(/algorithm/);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'alice' })).toString('base64url')}.`;
    await expect(verifier.verify(config, none)).rejects.toBeInstanceOf(IdentityRejected);
  });

  it('rejects what is not a JWT', async () => {
    await expect(verifier.verify(config, 'not-a-jwt')).rejects.toThrow('The token is not a valid JWT');
  });

  it('checks issuer and audience when configured', async () => {
    const strict: JwtAuthConfig = { ...config, issuer: 'https://auth.example', audience: 'my-game' };
    await expect(verifier.verify(strict, await hs256({ sub: 'alice', iss: 'https://auth.example', aud: 'my-game' }))).resolves.toMatchObject({ playerId: 'alice' });
    await expect(verifier.verify(strict, await hs256({ sub: 'alice', iss: 'https://evil.example', aud: 'my-game' }))).rejects.toThrow(/"iss" claim/);
    await expect(verifier.verify(strict, await hs256({ sub: 'alice', iss: 'https://auth.example', aud: 'other-game' }))).rejects.toThrow(/"aud" claim/);
    await expect(verifier.verify(strict, await hs256({ sub: 'alice', aud: 'my-game' }))).rejects.toThrow(/"iss" claim/);
    await expect(verifier.verify(strict, await hs256({ sub: 'alice', iss: 'https://auth.example' }))).rejects.toThrow(/"aud" claim/);
  });

  it('names the player by a custom claim, which must be there', async () => {
    const custom: JwtAuthConfig = { ...config, player_id_claim: 'player_id' };
    await expect(verifier.verify(custom, await hs256({ sub: 'account-1', player_id: 'alice' }))).resolves.toMatchObject({ playerId: 'alice' });
    await expect(verifier.verify(custom, await hs256({ sub: 'account-1', player_id: 42 }))).resolves.toMatchObject({ playerId: '42' });
    await expect(verifier.verify(custom, await hs256({ sub: 'account-1' }))).rejects.toThrow('The token has no "player_id" claim naming the player');
    await expect(verifier.verify(custom, await hs256({ player_id: { id: 'alice' } }))).rejects.toBeInstanceOf(IdentityRejected);
  });

  it('defaults the claim to sub', async () => {
    await expect(verifier.verify({ provider: 'jwt', secret: SECRET }, await hs256({ sub: 'alice' }))).resolves.toMatchObject({ playerId: 'alice' });
  });
});
