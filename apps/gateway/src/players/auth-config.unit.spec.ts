// POST /v3/projects/settings: auth_config is one of the four providers with its own fields (422 otherwise).
import { checkContract } from '@spawnpoint/proto';
import { SettingsPatch } from '../schemas';

const SECRET = 'x'.repeat(32);
function check(auth_config: unknown) {
  const r = checkContract(SettingsPatch, { auth_config }, ['body']);
  return r.ok ? { ok: r.value.auth_config } : { issues: r.issues };
}

describe('auth_config validation', () => {
  it.each([
    [{ provider: 'none' }],
    [{ provider: 'jwt', secret: SECRET, player_id_claim: 'sub' }],
    [{ provider: 'jwt', jwks_url: 'https://auth.example/.well-known/jwks.json', issuer: 'https://auth.example', audience: 'game', player_id_claim: 'player_id' }],
    [{ provider: 'playfab', title_id: 'AB12C', secret_key: 'S3CR3T' }],
    [{ provider: 'playfab', title_id: 'AB12C', secret_key: 'S3CR3T', base_url: 'http://127.0.0.1:9000' }],
    [{ provider: 'steam', app_id: 480, web_api_key: 'KEY' }],
    [{ provider: 'steam', app_id: '480', web_api_key: 'KEY', base_url: 'https://steam.internal' }],
  ])('accepts %j', (config) => {
    expect(check(config)).toEqual({ ok: config });
  });

  it('defaults player_id_claim to sub', () => {
    expect(check({ provider: 'jwt', secret: SECRET })).toEqual({ ok: { provider: 'jwt', secret: SECRET, player_id_claim: 'sub' } });
  });

  it.each([
    [{ provider: 'oauth' }, ['body', 'auth_config', 'provider']],
    [{}, ['body', 'auth_config', 'provider']],
    [{ provider: 'jwt' }, ['body', 'auth_config']],
    [{ provider: 'jwt', secret: SECRET, jwks_url: 'https://a.example/jwks' }, ['body', 'auth_config']],
    [{ provider: 'jwt', secret: 'too-short' }, ['body', 'auth_config', 'secret']],
    [{ provider: 'jwt', jwks_url: 'file:///etc/passwd' }, ['body', 'auth_config', 'jwks_url']],
    [{ provider: 'jwt', jwks_url: 'not a url' }, ['body', 'auth_config', 'jwks_url']],
    [{ provider: 'jwt', secret: SECRET, issuer: 7 }, ['body', 'auth_config', 'issuer']],
    [{ provider: 'jwt', secret: SECRET, player_id_claim: '' }, ['body', 'auth_config', 'player_id_claim']],
    [{ provider: 'jwt', secret: SECRET, title_id: 'AB12C' }, ['body', 'auth_config', 'title_id']],
    [{ provider: 'playfab', secret_key: 'S' }, ['body', 'auth_config', 'title_id']],
    [{ provider: 'playfab', title_id: 'AB12C' }, ['body', 'auth_config', 'secret_key']],
    [{ provider: 'playfab', title_id: 'evil.com/x', secret_key: 'S' }, ['body', 'auth_config', 'title_id']],
    [{ provider: 'playfab', title_id: 'AB12C', secret_key: 'S', base_url: 'ftp://x' }, ['body', 'auth_config', 'base_url']],
    [{ provider: 'steam', web_api_key: 'KEY' }, ['body', 'auth_config', 'app_id']],
    [{ provider: 'steam', app_id: 0, web_api_key: 'KEY' }, ['body', 'auth_config', 'app_id']],
    [{ provider: 'steam', app_id: 4.5, web_api_key: 'KEY' }, ['body', 'auth_config', 'app_id']],
    [{ provider: 'steam', app_id: 'abc', web_api_key: 'KEY' }, ['body', 'auth_config', 'app_id']],
    [{ provider: 'steam', app_id: 480 }, ['body', 'auth_config', 'web_api_key']],
    // the mask GET /v3/projects/settings shows, posted back: refused, so it is never stored as the secret
    [{ provider: 'steam', app_id: 480, web_api_key: '********' }, ['body', 'auth_config', 'web_api_key']],
    [{ provider: 'playfab', title_id: 'AB12C', secret_key: '********' }, ['body', 'auth_config', 'secret_key']],
    [{ provider: 'jwt', secret: '*'.repeat(32) }, ['body', 'auth_config', 'secret']],
    // not an object: an array (one holding a null made class-transformer's discriminator throw: a 500), a string, null
    [[['A'], null, 'x'], ['body', 'auth_config']],
    [[null], ['body', 'auth_config']],
    [[{ provider: 'none' }], ['body', 'auth_config']],
    ['none', ['body', 'auth_config']],
    [null, ['body', 'auth_config']],
  ])('refuses %j at %j', (config, loc) => {
    const result = check(config);
    expect(result.issues).toBeDefined();
    expect(result.issues!.map((i) => i.loc)).toContainEqual(loc);
    for (const issue of result.issues!) expect(issue).toEqual({ loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) });
  });
});
