import { DomainError, fold } from '../kit';
import { lobbyDecider, LobbyEvent, lobbyView } from '.';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:01:00.000Z';
const created: LobbyEvent = {
  type: 'LobbyCreated',
  data: {
    lobbyId: 'l1', projectId: 'p1', config: 'ranked', code: 'ABC234', hostId: 'alice', name: 'Friday', maxPlayers: 4, region: 'eu-central',
    isPrivate: true, allowLateJoin: true, settings: { map: 'dust' }, hostState: { ready: true }, at: t0,
  },
};
const bob: LobbyEvent = { type: 'PlayerJoined', data: { lobbyId: 'l1', playerId: 'bob', state: { team: 'red' }, at: t1 } };

describe('lobbyView', () => {
  it('returns exactly the v3 Lobby fields', () => {
    const view = lobbyView(fold(lobbyDecider, [created, bob]));
    expect(view).toEqual({
      id: 'l1', code: 'ABC234', config: 'ranked', name: 'Friday', status: 'waiting', host: 'alice', maxPlayers: 4, currentPlayers: 2,
      region: 'eu-central', isPrivate: true, allowLateJoin: true, settings: { map: 'dust' },
      players: [{ id: 'alice', state: { ready: true }, isHost: true }, { id: 'bob', state: { team: 'red' }, isHost: false }],
      server: null, matchmaking: null, createdAt: t0, updatedAt: t1,
    });
  });

  it('marks the new host after a transfer', () => {
    const view = lobbyView(fold(lobbyDecider, [created, bob, { type: 'HostChanged', data: { lobbyId: 'l1', from: 'alice', to: 'bob', reason: 'transferred', at: t1 } }]));
    expect(view.host).toBe('bob');
    expect(view.players.map((p) => p.isHost)).toEqual([false, true]);
  });

  it('shows the server and in_game status once running', () => {
    const server = { instance_id: 'srv-1', host: '10.0.0.1' };
    const view = lobbyView(fold(lobbyDecider, [
      created,
      { type: 'GameStarting', data: { lobbyId: 'l1', by: 'alice', at: t1 } },
      { type: 'LobbyServerAssigned', data: { lobbyId: 'l1', server, at: t1 } },
      { type: 'GameStarted', data: { lobbyId: 'l1', at: t1 } },
    ]));
    expect(view).toMatchObject({ status: 'in_game', server });
  });

  it('does not leak internal fields (joinedAt, lastSeenAt, lastActivityAt)', () => {
    const view = lobbyView(fold(lobbyDecider, [created])) as unknown as Record<string, unknown>;
    expect(view).not.toHaveProperty('lastActivityAt');
    expect(view).not.toHaveProperty('projectId');
    expect(Object.keys((view.players as object[])[0])).toEqual(['id', 'state', 'isHost']);
  });

  it('is not found for a missing or deleted lobby', () => {
    expect(() => lobbyView(lobbyDecider.initialState)).toThrow(DomainError);
    const gone = fold(lobbyDecider, [created, { type: 'LobbyDeleted', data: { lobbyId: 'l1', reason: 'admin', at: t1 } }]);
    expect(() => lobbyView(gone)).toThrow(/lobby not found/);
  });
});
