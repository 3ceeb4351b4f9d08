import { configTimeout, finishedLobby, legacyStatus, toLegacyLobby, v3Privacy } from './legacy-lobby';
import type { LobbyView } from '@spawnpoint/domain';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:01:00.000Z';
const v3: LobbyView = {
  id: '6f0c6f5e-0000-4000-8000-000000000001', code: 'ABC234', config: 'ranked', name: 'Friday', status: 'waiting', host: 'alice', maxPlayers: 4,
  currentPlayers: 2, region: 'eu-west', isPrivate: true, allowLateJoin: true, settings: { map: 'dust' },
  players: [{ id: 'alice', state: { ready: true }, isHost: true }, { id: 'bob', state: { team: 'red' }, isHost: false }],
  server: null, createdAt: t0, updatedAt: t1,
};

describe('legacy lobby view', () => {
  it('maps every field of a v3 lobby', () => {
    expect(toLegacyLobby(v3, 600)).toEqual({
      id: v3.id, name: 'Friday', host: 'alice', maxPlayers: 4, currentPlayers: 2, region: 'eu-west', status: 'waiting',
      isPrivate: true, useInviteCode: true, inviteCode: 'ABC234', allowLateJoin: true, settings: { map: 'dust' },
      players: ['alice', 'bob'], lobbyStateRealTime: { alice: { ready: true }, bob: { team: 'red' } }, gameServer: null,
      timeout: 600, createdAt: t0, updatedAt: t1,
    });
  });

  it('a public lobby has no invite code; a missing name is null; timeout defaults to 300', () => {
    const pub = toLegacyLobby({ ...v3, code: null, isPrivate: false, name: undefined });
    expect(pub).toMatchObject({ isPrivate: false, useInviteCode: false, inviteCode: null, name: null, timeout: 300 });
  });

  it('shows the game server', () => {
    const server = { instance_id: 'srv-1', status: 'running', network_ports: [] };
    expect(toLegacyLobby({ ...v3, status: 'in_game', server }).gameServer).toEqual(server);
  });

  it.each([
    ['waiting', 'waiting'], ['in_game', 'in_game'], ['completed', 'finished'], ['deleted', 'finished'],
    ['in_queue', 'waiting'], ['starting', 'waiting'], ['matched', 'waiting'], ['match_found', 'waiting'], ['anything', 'waiting'],
  ])('maps status %s to %s', (from, to) => {
    expect(legacyStatus(from)).toBe(to);
    expect(toLegacyLobby({ ...v3, status: from }).status).toBe(to);
  });

  it('a finished lobby drops the leaver and the server', () => {
    const last = toLegacyLobby({ ...v3, server: { instance_id: 's' } });
    const done = finishedLobby(last, '2026-11-21T11:00:00.000Z', 'bob');
    expect(done).toMatchObject({ status: 'finished', players: ['alice'], currentPlayers: 1, lobbyStateRealTime: { alice: { ready: true } }, gameServer: null,
      updatedAt: '2026-11-21T11:00:00.000Z' });
    expect(finishedLobby(last, t1).players).toEqual(['alice', 'bob']);
  });
});

describe('legacy requests → v3', () => {
  it('useInviteCode or isPrivate makes a private lobby (v3 has a code exactly when private)', () => {
    expect(v3Privacy(undefined, undefined)).toBeUndefined();
    expect(v3Privacy(true, undefined)).toBe(true);
    expect(v3Privacy(false, true)).toBe(true);
    expect(v3Privacy(undefined, true)).toBe(true);
    expect(v3Privacy(false, false)).toBe(false);
    expect(v3Privacy(undefined, false)).toBe(false);
  });

  it("reads a configuration's timeout by name or id", () => {
    const configs = [{ name: 'ranked', id: 'cfg-1', timeout: 900 }, { name: 'casual' }];
    expect(configTimeout(configs, 'ranked')).toBe(900);
    expect(configTimeout(configs, 'cfg-1')).toBe(900);
    expect(configTimeout(configs, 'casual')).toBe(300);
    expect(configTimeout(configs, 'default')).toBe(300);
    expect(configTimeout(undefined, 'default')).toBe(300);
  });
});
