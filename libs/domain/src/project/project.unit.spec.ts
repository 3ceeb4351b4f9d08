import { given } from '../kit/testing';
import { completeSettingsPatch, defaultSettings, projectDecider, ProjectEvent } from '.';

const now = '2026-11-21T10:00:00.000Z';
const settings = defaultSettings({ udpPortId: 'p1', tcpPortId: 'p2' });
const created: ProjectEvent = {
  type: 'ProjectCreated',
  data: { projectId: 'prj', name: 'Demo', plan: 'pro', serverKeyHash: 'sh', clientKeyHash: 'ch', settings, at: now },
};

describe('Project', () => {
  it('is created with hashed keys and default settings', () => {
    given(projectDecider).when({ type: 'CreateProject', projectId: 'prj', name: 'Demo', plan: 'pro', serverKeyHash: 'sh', clientKeyHash: 'ch', settings, now })
      .then([created]);
  });

  it('cannot be created twice', () => {
    given(projectDecider, [created])
      .when({ type: 'CreateProject', projectId: 'prj', name: 'Demo', plan: 'pro', serverKeyHash: 'sh', clientKeyHash: 'ch', settings, now })
      .thenError('conflict');
  });

  it('replaces each given top-level settings field whole and keeps the others', () => {
    const state = given(projectDecider, [created])
      .when({ type: 'UpdateSettings', patch: { environment_variables: { MODE: 'ranked' }, client_key_server_control: false }, now })
      .then([{ type: 'ProjectSettingsUpdated', data: { projectId: 'prj', at: now, settings: { ...settings, environment_variables: { MODE: 'ranked' }, client_key_server_control: false } } }]);
    expect(state.status === 'active' && state.settings.port_configs).toEqual(settings.port_configs);
  });

  it('rotates keys and remembers the previous hashes so they can be revoked', () => {
    const state = given(projectDecider, [created])
      .when({ type: 'RotateKeys', serverKeyHash: 'sh2', clientKeyHash: 'ch2', now })
      .then([{ type: 'ProjectKeysRotated', data: { projectId: 'prj', previousServerKeyHash: 'sh', previousClientKeyHash: 'ch', serverKeyHash: 'sh2', clientKeyHash: 'ch2', at: now } }]);
    expect(state.status === 'active' && state.serverKeyHash).toBe('sh2');
  });

  it('changes plan and limits; omitted values stay', () => {
    const limits = { read_per_second: 10000, write_per_second: 5000, player_per_second: 1000 };
    const state = given(projectDecider, [created]).when({ type: 'ChangePlan', rateLimits: limits, now })
      .then([{ type: 'ProjectPlanChanged', data: { projectId: 'prj', plan: 'pro', rateLimits: limits, at: now } }]);
    expect(state.status === 'active' && state.rateLimits).toEqual(limits);
  });

  it('refuses commands on a project that does not exist', () => {
    given(projectDecider).when({ type: 'UpdateSettings', patch: {}, now }).thenError('not_found');
    given(projectDecider).when({ type: 'RotateKeys', serverKeyHash: 'a', clientKeyHash: 'b', now }).thenError('not_found');
  });

  it('fills in a patch\'s defaults: new ports get an id and no TLS, a pool the latest build on small; null stays null', () => {
    let n = 0;
    const id = () => `new-${++n}`;
    expect(completeSettingsPatch({
      port_configs: [{ name: 'game', internal_port: 7777, protocol: 'udp' }, { id: 'kept', name: 'web', internal_port: 443, protocol: 'tcp', tls_enabled: true }],
      pool_config: { enabled: true, regions: { 'us-east': { min_ready: 1, max: 2 } }, build_name: 'default' },
      client_key_server_control: false,
    }, id)).toEqual({
      port_configs: [
        { id: 'new-1', name: 'game', internal_port: 7777, protocol: 'udp', tls_enabled: false },
        { id: 'kept', name: 'web', internal_port: 443, protocol: 'tcp', tls_enabled: true },
      ],
      pool_config: { enabled: true, regions: { 'us-east': { min_ready: 1, max: 2 } }, build_name: 'default', build_version: null, compute_size: 'small' },
      client_key_server_control: false,
    });
    expect(completeSettingsPatch({ pool_config: null }, id)).toEqual({ pool_config: null });
    expect(completeSettingsPatch({}, id)).toEqual({});
  });

  it('gives every lobby config an id: the one given, else the stored one of the same name, else a new one from the command', () => {
    const settingsWith = (lobby_configs: Record<string, unknown>[]) => ({ ...settings, lobby_configs });
    const first = settingsWith([{ name: 'default', id: 'n1' }, { name: 'ranked', id: 'mine' }]);
    given(projectDecider, [created]).when({ type: 'UpdateSettings', patch: { lobby_configs: [{ name: 'default' }, { name: 'ranked', id: 'mine' }] }, newIds: ['n1', 'n2'], now })
      .then([{ type: 'ProjectSettingsUpdated', data: { projectId: 'prj', settings: first, at: now } }]);
    const updated: ProjectEvent = { type: 'ProjectSettingsUpdated', data: { projectId: 'prj', settings: first, at: now } };
    // replaced without ids: the names keep theirs; a new name gets a new one
    given(projectDecider, [created, updated]).when({ type: 'UpdateSettings', patch: { lobby_configs: [{ name: 'ranked', maxPlayers: 4 }, { name: 'casual' }, { name: 'default' }] }, newIds: ['n3', 'n4', 'n5'], now })
      .then([{ type: 'ProjectSettingsUpdated', data: { projectId: 'prj', settings: settingsWith([{ name: 'ranked', maxPlayers: 4, id: 'mine' }, { name: 'casual', id: 'n3' }, { name: 'default', id: 'n1' }]), at: now } }]);
    const e = given(projectDecider, [created]).when({ type: 'UpdateSettings', patch: { lobby_configs: [{ name: 'a', id: 'x' }, { name: 'b', id: 'x' }] }, newIds: [], now }).thenError('invalid', /twice/);
    expect(e.detail).toEqual([{ loc: ['body', 'lobby_configs', 1, 'id'], msg: expect.any(String), type: 'value_error' }]);
  });
});
