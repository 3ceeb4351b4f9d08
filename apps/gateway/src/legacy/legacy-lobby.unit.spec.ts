import { configTimeout, finishedLobby, legacyStatus, toLegacyLobby } from './legacy-lobby';
import type { LobbyView } from '@spawnpoint/domain';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:01:00.000Z';
const v3: LobbyView = {
  id: '6f0c6f5e-0000-4000-8000-000000000001', code: 'ABC234', config: 'ranked', name: 'Friday', status: 'waiting', host: 'alice', maxPlayers: 4,
  currentPlayers: 2, region: 'eu-west', isPrivate: true, allowLateJoin: true, settings: { map: 'dust' },
  players: [{ id: 'alice', state: { ready: true }, isHost: true }, { id: 'bob', state: { team: 'red' }, isHost: false }],
  server: null, matchmaking: null, createdAt: t0, updatedAt: t1,
};

describe('legacy lobby view', () => {
  it('maps every field of a v3 lobby', () => {
    expect(toLegacyLobby(v3, 600)).toEqual({
      id: v3.id, name: 'Friday', host: 'alice', maxPlayers: 4, currentPlayers: 2, region: 'eu-west', status: 'waiting',
      isPrivate: true, useInviteCode: true, inviteCode: 'ABC234', allowLateJoin: true, settings: { map: 'dust' },
      players: ['alice', 'bob'], lobbyStateRealTime: { alice: { ready: true }, bob: { team: 'red' } }, gameServer: null,
      timeout: 600, createdAt: t0, updatedAt: t1, matchmakingMode: null, matchmakingStartedAt: null,
    });
  });

  it('a public lobby shows its invite code too; a lobby without a code (codes off) has useInviteCode false', () => {
    expect(toLegacyLobby({ ...v3, isPrivate: false })).toMatchObject({ isPrivate: false, useInviteCode: true, inviteCode: 'ABC234' });
    expect(toLegacyLobby({ ...v3, isPrivate: false, code: null })).toMatchObject({ isPrivate: false, useInviteCode: false, inviteCode: null });
  });

  it("shows a search's mode and start", () => {
    const matchmaking = { mode: 'duel', startedAt: t1, queueStats: { playersSearching: 2, lobbiesInQueue: 1, avgWaitSeconds: 0 }, confirmation: null };
    expect(toLegacyLobby({ ...v3, status: 'in_queue', matchmaking })).toMatchObject({ status: 'waiting', matchmakingMode: 'duel', matchmakingStartedAt: t1 });
  });

  it('a lobby without a name shows "" (the published Lobby always has one); timeout defaults to 300', () => {
    expect(toLegacyLobby({ ...v3, name: null })).toMatchObject({ name: '', timeout: 300 });
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

  it('a finished lobby keeps its players and drops the server', () => {
    const last = toLegacyLobby({ ...v3, server: { instance_id: 's' } });
    const done = finishedLobby(last, '2026-11-21T11:00:00.000Z');
    expect(done).toMatchObject({ status: 'finished', players: ['alice', 'bob'], currentPlayers: 2, gameServer: null, updatedAt: '2026-11-21T11:00:00.000Z' });
  });
});

describe('legacy requests → v3', () => {
  it("reads a configuration's timeout by name or id", () => {
    const configs = [{ name: 'ranked', id: 'cfg-1', timeout: 900 }, { name: 'casual' }];
    expect(configTimeout(configs, 'ranked')).toBe(900);
    expect(configTimeout(configs, 'cfg-1')).toBe(900);
    expect(configTimeout(configs, 'casual')).toBe(300);
    expect(configTimeout(configs, 'default')).toBe(300);
    expect(configTimeout(undefined, 'default')).toBe(300);
  });
});
