import { DomainError } from '../kit';
import { DEFAULT_LOBBY_CONFIG, resolveLobbyConfig } from './config';

describe('resolveLobbyConfig', () => {
  it('has default without any configuration', () => {
    expect(resolveLobbyConfig([], 'default')).toEqual(DEFAULT_LOBBY_CONFIG);
  });

  it('finds a configuration by name or id and fills in the defaults', () => {
    const configs = [{ id: 'cfg-1', name: 'ranked', maxPlayers: 4, heartbeat: true, serverSettings: { compute_size: 'medium' } }];
    const byName = resolveLobbyConfig(configs, 'ranked');
    expect(byName).toMatchObject({ name: 'ranked', maxPlayers: 4, heartbeat: true, heartbeatTimeout: 30, timeout: 300, hostLeaveBehavior: 'promote' });
    expect(byName.serverSettings).toEqual({ version_tag: 'default', compute_size: 'medium' });
    expect(resolveLobbyConfig(configs, 'cfg-1').name).toBe('ranked');
  });

  it('invite codes: the default when not given, the given shape, none when inviteCodeConfig is null', () => {
    expect(resolveLobbyConfig([{ name: 'a' }], 'a').inviteCodeConfig).toEqual({ type: 'alphanumeric', length: 6, prefix: '' });
    expect(resolveLobbyConfig([{ name: 'a', inviteCodeConfig: { type: 'numeric', length: 4, prefix: 'D-' } }], 'a').inviteCodeConfig)
      .toEqual({ type: 'numeric', length: 4, prefix: 'D-' });
    expect(resolveLobbyConfig([{ name: 'a', inviteCodeConfig: null }], 'a').inviteCodeConfig).toBeNull();
  });

  it('does not know unknown or disabled configurations (404)', () => {
    expect(() => resolveLobbyConfig([], 'ranked')).toThrow(DomainError);
    expect(() => resolveLobbyConfig([{ name: 'ranked', enabled: false }], 'ranked')).toThrow(/not found/);
  });
});
