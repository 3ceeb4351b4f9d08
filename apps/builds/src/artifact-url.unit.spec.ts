// Signed artifact URLs (proto/src/builds.ts): what a game pod presents to download a zip build.
import { createHmac } from 'node:crypto';
import { ARTIFACT_URL_TTL_S, signArtifactUrl, verifyArtifact } from '@spawnpoint/proto';

const secret = 's3cret';
const buildId = '6f1c2b9e-8d4a-4c1e-9f0a-1b2c3d4e5f60';
const now = new Date('2026-11-21T10:00:00Z');
const nowS = now.getTime() / 1000;

const paramsOf = (url: string) => {
  const u = new URL(url);
  return { path: u.pathname, expires: u.searchParams.get('expires')!, signature: u.searchParams.get('signature')! };
};

describe('signArtifactUrl', () => {
  it('signs `${buildId}.${expires}` with HMAC-SHA256 and builds the artifact path on the base URL', () => {
    const signed = signArtifactUrl({ baseUrl: 'http://gw.spawnpoint.svc:8080/', secret, buildId, now });
    const p = paramsOf(signed.url);
    expect(p.path).toBe(`/api/v3/builds/${buildId}/artifact`);
    expect(signed.url.startsWith('http://gw.spawnpoint.svc:8080/api/')).toBe(true);
    expect(signed.expires).toBe(nowS + ARTIFACT_URL_TTL_S);
    expect(p.expires).toBe(String(nowS + 3600));
    expect(p.signature).toBe(createHmac('sha256', secret).update(`${buildId}.${nowS + 3600}`).digest('hex'));
    expect(signed.expiresAt).toBe('2026-11-21T11:00:00.000Z');
  });

  it('takes a custom lifetime', () => {
    expect(signArtifactUrl({ baseUrl: 'http://x', secret, buildId, now, ttlSeconds: 60 }).expires).toBe(nowS + 60);
  });
});

describe('verifyArtifact', () => {
  const { expires, signature } = paramsOf(signArtifactUrl({ baseUrl: 'http://x', secret, buildId, now }).url);
  const check = (over: Partial<Parameters<typeof verifyArtifact>[0]>) => verifyArtifact({ secret, buildId, expires, signature, now, ...over });

  it('accepts its own URL until it expires', () => {
    expect(check({})).toEqual({ ok: true });
    expect(check({ now: new Date((nowS + 3599) * 1000) })).toEqual({ ok: true });
    expect(check({ signature: signature.toUpperCase() })).toEqual({ ok: true });
  });

  it('refuses an expired URL', () => {
    expect(check({ now: new Date((nowS + 3600) * 1000) })).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a URL for another build, a tampered signature or expiry, or another secret', () => {
    const invalid = { ok: false, reason: 'invalid' };
    expect(check({ buildId: '00000000-0000-4000-8000-000000000000' })).toEqual(invalid);
    expect(check({ signature: `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}` })).toEqual(invalid);
    expect(check({ expires: String(Number(expires) + 3600) })).toEqual(invalid);
    expect(check({ secret: 'other' })).toEqual(invalid);
  });

  it('refuses missing or malformed parameters without throwing', () => {
    const invalid = { ok: false, reason: 'invalid' };
    for (const bad of [undefined, '', 'abc', signature.slice(2), `${signature}00`, ['a'], 'zz'.repeat(32)]) expect(check({ signature: bad })).toEqual(invalid);
    for (const bad of [undefined, '', '-1', '1e9', '12.5', ' 1', ['1'], '1'.repeat(13)]) expect(check({ expires: bad })).toEqual(invalid);
  });
});
