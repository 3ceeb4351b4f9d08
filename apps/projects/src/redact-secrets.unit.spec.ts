import { defaultSettings } from '@spawnpoint/domain';
import { SettingsView } from '@spawnpoint/proto';
import { redactSecrets } from './project-views';

const settings = (auth_config: SettingsView['auth_config']): SettingsView => ({
  ...defaultSettings({ udpPortId: 'u', tcpPortId: 't' }), auth_config, updated_at: '2026-01-01T00:00:00.000Z',
});

describe('redactSecrets', () => {
  it.each([
    [{ provider: 'jwt', secret: 'a-test-secret-of-at-least-32-characters!', player_id_claim: 'sub' }, { provider: 'jwt', secret: '********', player_id_claim: 'sub' }],
    [{ provider: 'jwt', jwks_url: 'https://auth.example/jwks', issuer: 'i', player_id_claim: 'sub' }, { provider: 'jwt', jwks_url: 'https://auth.example/jwks', issuer: 'i', player_id_claim: 'sub' }],
    [{ provider: 'playfab', title_id: 'AB12C', secret_key: 'S3CR3T', base_url: 'http://x' }, { provider: 'playfab', title_id: 'AB12C', secret_key: '********', base_url: 'http://x' }],
    [{ provider: 'steam', app_id: 480, web_api_key: 'KEY' }, { provider: 'steam', app_id: 480, web_api_key: '********' }],
    [{ provider: 'none' }, { provider: 'none' }],
  ])('hides the secrets of %j', (auth, expected) => {
    const input = settings(auth);
    const out = redactSecrets(input);
    expect(out.auth_config).toEqual(expected);
    expect(JSON.stringify(out)).not.toMatch(/S3CR3T|KEY"|at-least-32/);
    expect(input.auth_config).toEqual(auth); // the stored settings are not changed
  });
});
