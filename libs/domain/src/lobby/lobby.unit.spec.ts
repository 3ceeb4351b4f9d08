import { given } from '../kit/testing';
import { fold } from '../kit';
import { lobbyDecider, LobbyEvent, lobbyStream } from '.';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:01:00.000Z';
const t2 = '2026-11-21T10:02:00.000Z';
const L = 'l1';

const created: LobbyEvent = {
  type: 'LobbyCreated',
  data: {
    lobbyId: L, projectId: 'p1', config: 'default', code: null, hostId: 'alice', name: 'Friday', maxPlayers: 3, region: 'eu-central',
    isPrivate: false, allowLateJoin: false, settings: { map: 'dust' }, hostState: { ready: false }, at: t0,
  },
};
const createdPrivate: LobbyEvent = { type: 'LobbyCreated', data: { ...(created.data as any), isPrivate: true, code: 'ABC234' } };
const createdLateJoin: LobbyEvent = { type: 'LobbyCreated', data: { ...(created.data as any), allowLateJoin: true } };
const joined = (playerId: string, at = t1, state: Record<string, unknown> = {}): LobbyEvent => ({ type: 'PlayerJoined', data: { lobbyId: L, playerId, state, at } });
const bob = joined('bob');
const carol = joined('carol', t2);
const starting: LobbyEvent = { type: 'GameStarting', data: { lobbyId: L, by: 'alice', at: t1 } };
const server = { instance_id: 'srv-1', status: 'starting', host: '10.0.0.1' };
const assigned: LobbyEvent = { type: 'LobbyServerAssigned', data: { lobbyId: L, server, at: t1 } };
const running: LobbyEvent = { type: 'GameStarted', data: { lobbyId: L, at: t2 } };
const deleted: LobbyEvent = { type: 'LobbyDeleted', data: { lobbyId: L, reason: 'admin', at: t1 } };
const inGame = [created, bob, starting, assigned, running];

const createCommand = {
  type: 'CreateLobby' as const, lobbyId: L, projectId: 'p1', config: 'default', hostId: 'alice', name: 'Friday', maxPlayers: 3, region: 'eu-central',
  isPrivate: false, allowLateJoin: false, settings: { map: 'dust' }, hostState: { ready: false }, code: null, now: t0,
};

describe('Lobby stream', () => {
  it('is named lobby-<id>', () => {
    expect(lobbyStream('abc')).toBe('lobby-abc');
  });
});

describe('CreateLobby', () => {
  it('creates a waiting lobby with the creator as host and only player', () => {
    const s = given(lobbyDecider).when(createCommand).then([created]);
    expect(s).toMatchObject({ status: 'waiting', host: 'alice', code: null, maxPlayers: 3, createdAt: t0, updatedAt: t0, lastActivityAt: t0, server: null });
    expect(s.status !== 'none' && s.players).toEqual([{ id: 'alice', state: { ready: false }, joinedAt: t0, lastSeenAt: t0 }]);
  });

  it('gives a private lobby the invite code from the command', () => {
    const s = given(lobbyDecider).when({ ...createCommand, isPrivate: true, code: 'ABC234' }).then([createdPrivate]);
    expect(s).toMatchObject({ isPrivate: true, code: 'ABC234' });
  });

  it('gives a public lobby the invite code from the command too (isPrivate only hides it from browse)', () => {
    const s = given(lobbyDecider).when({ ...createCommand, code: 'ZZZ999' }).then([{ type: 'LobbyCreated', data: { ...(created.data as any), code: 'ZZZ999' } }]);
    expect(s).toMatchObject({ isPrivate: false, code: 'ZZZ999' });
  });

  it('creates a lobby without a code when the config has invite codes off (code null), private or not', () => {
    const s = given(lobbyDecider).when({ ...createCommand, isPrivate: true, code: null })
      .then([{ type: 'LobbyCreated', data: { ...(created.data as any), isPrivate: true, code: null } }]);
    expect(s).toMatchObject({ isPrivate: true, code: null });
  });

  it('defaults the name to null', () => {
    const { name: _n, ...noName } = createCommand;
    const s = given(lobbyDecider).when(noName).then([{ type: 'LobbyCreated', data: { ...(created.data as any), name: null } }]);
    expect(s).toMatchObject({ name: null });
  });

  it('refuses maxPlayers outside 1–100 or not an integer (422)', () => {
    given(lobbyDecider).when({ ...createCommand, maxPlayers: 0 }).thenError('invalid', /maxPlayers/);
    given(lobbyDecider).when({ ...createCommand, maxPlayers: 101 }).thenError('invalid', /maxPlayers/);
    given(lobbyDecider).when({ ...createCommand, maxPlayers: 2.5 }).thenError('invalid', /maxPlayers/);
  });

  it('accepts the limits 1 and 100', () => {
    given(lobbyDecider).when({ ...createCommand, maxPlayers: 1 }).then([{ type: 'LobbyCreated', data: { ...(created.data as any), maxPlayers: 1 } }]);
    given(lobbyDecider).when({ ...createCommand, maxPlayers: 100 }).then([{ type: 'LobbyCreated', data: { ...(created.data as any), maxPlayers: 100 } }]);
  });

  it('refuses to create a lobby twice (409)', () => {
    given(lobbyDecider, [created]).when(createCommand).thenError('conflict', /already exists/);
  });
});

describe('JoinLobby', () => {
  it('adds the player at the end, with their initial state', () => {
    const s = given(lobbyDecider, [created]).when({ type: 'JoinLobby', playerId: 'bob', state: { team: 'red' }, now: t1 })
      .then([joined('bob', t1, { team: 'red' })]);
    expect(s.status !== 'none' && s.players.map((p) => p.id)).toEqual(['alice', 'bob']);
    expect(s).toMatchObject({ updatedAt: t1, lastActivityAt: t1 });
  });

  it('refuses a full lobby (400 "lobby is full")', () => {
    given(lobbyDecider, [created, bob, carol]).when({ type: 'JoinLobby', playerId: 'dave', state: {}, now: t2 }).thenError('bad_request', 'lobby is full');
  });

  it('refuses a lobby that is not accepting players (400)', () => {
    given(lobbyDecider, [created, starting]).when({ type: 'JoinLobby', playerId: 'bob', state: {}, now: t2 }).thenError('bad_request', /not accepting/);
    given(lobbyDecider, inGame).when({ type: 'JoinLobby', playerId: 'carol', state: {}, now: t2 }).thenError('bad_request', /not accepting/);
  });

  it('lets players join an in_game lobby with allowLateJoin', () => {
    const history = [createdLateJoin, starting, assigned, running];
    const s = given(lobbyDecider, history).when({ type: 'JoinLobby', playerId: 'bob', state: {}, now: t2 }).then([joined('bob', t2)]);
    expect(s).toMatchObject({ status: 'in_game' });
    expect(s.status !== 'none' && s.players).toHaveLength(2);
  });

  it('refuses a player who is already a member (409)', () => {
    given(lobbyDecider, [created, bob]).when({ type: 'JoinLobby', playerId: 'bob', state: {}, now: t2 }).thenError('conflict', /already/);
  });

  it('is 404 for a lobby that does not exist or was deleted', () => {
    given(lobbyDecider).when({ type: 'JoinLobby', playerId: 'bob', state: {}, now: t1 }).thenError('not_found', /lobby/);
    given(lobbyDecider, [created, deleted]).when({ type: 'JoinLobby', playerId: 'bob', state: {}, now: t2 }).thenError('not_found', /lobby/);
  });
});

describe('LeaveLobby', () => {
  it('removes a non-host player', () => {
    const s = given(lobbyDecider, [created, bob]).when({ type: 'LeaveLobby', playerId: 'bob', hostLeaveBehavior: 'promote', now: t2 })
      .then([{ type: 'PlayerLeft', data: { lobbyId: L, playerId: 'bob', reason: 'left', at: t2 } }]);
    expect(s).toMatchObject({ status: 'waiting', host: 'alice' });
    expect(s.status !== 'none' && s.players.map((p) => p.id)).toEqual(['alice']);
  });

  it('deletes the lobby when the last player leaves (reason empty)', () => {
    const s = given(lobbyDecider, [created]).when({ type: 'LeaveLobby', playerId: 'alice', hostLeaveBehavior: 'promote', now: t1 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'alice', reason: 'left', at: t1 } },
      { type: 'LobbyDeleted', data: { lobbyId: L, reason: 'empty', at: t1 } },
    ]);
    expect(s).toMatchObject({ status: 'deleted', deleteReason: 'empty' });
  });

  it('promotes the oldest remaining player when the host leaves (promote)', () => {
    const s = given(lobbyDecider, [created, bob, carol]).when({ type: 'LeaveLobby', playerId: 'alice', hostLeaveBehavior: 'promote', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'alice', reason: 'left', at: t2 } },
      { type: 'HostChanged', data: { lobbyId: L, from: 'alice', to: 'bob', reason: 'promoted', at: t2 } },
    ]);
    expect(s).toMatchObject({ host: 'bob' });
  });

  it('deletes the lobby when the host leaves (close, reason host_left)', () => {
    const s = given(lobbyDecider, [created, bob]).when({ type: 'LeaveLobby', playerId: 'alice', hostLeaveBehavior: 'close', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'alice', reason: 'left', at: t2 } },
      { type: 'LobbyDeleted', data: { lobbyId: L, reason: 'host_left', at: t2 } },
    ]);
    expect(s).toMatchObject({ status: 'deleted', deleteReason: 'host_left' });
  });

  it('is 404 for a non-member', () => {
    given(lobbyDecider, [created]).when({ type: 'LeaveLobby', playerId: 'bob', hostLeaveBehavior: 'promote', now: t1 }).thenError('not_found', /not in this lobby/);
  });

  it('is 404 on a deleted lobby', () => {
    given(lobbyDecider, [created, deleted]).when({ type: 'LeaveLobby', playerId: 'alice', hostLeaveBehavior: 'promote', now: t2 }).thenError('not_found', /lobby/);
  });
});

describe('UpdatePlayerState', () => {
  it('merges into the player state, keeping keys not overwritten', () => {
    const history = [created, joined('bob', t1, { team: 'red', mmr: 1200 })];
    const s = given(lobbyDecider, history).when({ type: 'UpdatePlayerState', playerId: 'bob', state: { ready: true, team: 'blue' }, now: t2 })
      .then([{ type: 'PlayerStateUpdated', data: { lobbyId: L, playerId: 'bob', state: { ready: true, team: 'blue' }, at: t2 } }]);
    expect(s.status !== 'none' && s.players[1].state).toEqual({ team: 'blue', mmr: 1200, ready: true });
    expect(s.status !== 'none' && s.players[1].lastSeenAt).toBe(t2);
    expect(s).toMatchObject({ updatedAt: t2 });
  });

  it('is 404 for a non-member', () => {
    given(lobbyDecider, [created]).when({ type: 'UpdatePlayerState', playerId: 'bob', state: { ready: true }, now: t1 }).thenError('not_found');
  });

  it("lets the host change another member's state, which marks the host seen, not the member", () => {
    const history = [created, joined('bob', t1, { team: 'red' })];
    const s = given(lobbyDecider, history).when({ type: 'UpdatePlayerState', playerId: 'bob', by: 'alice', state: { team: 'blue' }, now: t2 })
      .then([{ type: 'PlayerStateUpdated', data: { lobbyId: L, playerId: 'bob', by: 'alice', state: { team: 'blue' }, at: t2 } }]);
    expect(s.status !== 'none' && s.players.map((p) => [p.id, p.state, p.lastSeenAt])).toEqual([['alice', { ready: false }, t2], ['bob', { team: 'blue' }, t1]]);
  });

  it("refuses a non-host changing another member's state (403), and the host changing a non-member's (404)", () => {
    const history = [created, joined('bob', t1), joined('carol', t1)];
    given(lobbyDecider, history).when({ type: 'UpdatePlayerState', playerId: 'carol', by: 'bob', state: { team: 'blue' }, now: t2 }).thenError('forbidden', /host/);
    given(lobbyDecider, history).when({ type: 'UpdatePlayerState', playerId: 'dave', by: 'alice', state: { team: 'blue' }, now: t2 }).thenError('not_found');
  });

  it('refuses a state that is not an object (422)', () => {
    given(lobbyDecider, [created]).when({ type: 'UpdatePlayerState', playerId: 'alice', state: [1] as any, now: t1 }).thenError('invalid', /object/);
  });
});

describe('UpdateSettings', () => {
  it('lets the host change name, maxPlayers, allowLateJoin, region and settings', () => {
    const s = given(lobbyDecider, [created, bob]).when({
      type: 'UpdateSettings', playerId: 'alice', name: 'Saturday', maxPlayers: 10, allowLateJoin: true, region: 'us-east', settings: { map: 'nuke' }, now: t2,
    }).then([{
      type: 'LobbySettingsUpdated',
      data: { lobbyId: L, by: 'alice', changes: { name: 'Saturday', maxPlayers: 10, allowLateJoin: true, region: 'us-east', settings: { map: 'nuke' } }, at: t2 },
    }]);
    expect(s).toMatchObject({ name: 'Saturday', maxPlayers: 10, allowLateJoin: true, region: 'us-east', settings: { map: 'nuke' }, updatedAt: t2 });
  });

  it('refuses a non-host (403)', () => {
    given(lobbyDecider, [created, bob]).when({ type: 'UpdateSettings', playerId: 'bob', maxPlayers: 5, now: t2 }).thenError('forbidden', /host/);
  });

  it('is 404 for a non-member', () => {
    given(lobbyDecider, [created]).when({ type: 'UpdateSettings', playerId: 'bob', maxPlayers: 5, now: t2 }).thenError('not_found');
  });

  it('refuses maxPlayers below the current player count (422)', () => {
    const err = given(lobbyDecider, [created, bob, carol]).when({ type: 'UpdateSettings', playerId: 'alice', maxPlayers: 2, now: t2 }).thenError('invalid', /player count/);
    // every 422 names its field (decisions.md)
    expect(err.detail).toEqual([{ loc: ['body', 'maxPlayers'], msg: 'maxPlayers cannot be below the current player count (3)', type: 'greater_than_equal' }]);
  });

  it('refuses maxPlayers above 100 (422)', () => {
    given(lobbyDecider, [created]).when({ type: 'UpdateSettings', playerId: 'alice', maxPlayers: 101, now: t2 }).thenError('invalid', /maxPlayers/);
  });

  it('making the lobby private keeps its invite code', () => {
    const withCode: LobbyEvent = { type: 'LobbyCreated', data: { ...(created.data as any), code: 'QWE789' } };
    const s = given(lobbyDecider, [withCode]).when({ type: 'UpdateSettings', playerId: 'alice', isPrivate: true, now: t1 })
      .then([{ type: 'LobbySettingsUpdated', data: { lobbyId: L, by: 'alice', changes: { isPrivate: true }, at: t1 } }]);
    expect(s).toMatchObject({ isPrivate: true, code: 'QWE789' });
  });

  it('making the lobby public keeps its invite code', () => {
    const s = given(lobbyDecider, [createdPrivate]).when({ type: 'UpdateSettings', playerId: 'alice', isPrivate: false, now: t1 })
      .then([{ type: 'LobbySettingsUpdated', data: { lobbyId: L, by: 'alice', changes: { isPrivate: false }, at: t1 } }]);
    expect(s).toMatchObject({ isPrivate: false, code: 'ABC234' });
  });

  it('still folds a stored settings change that cleared the code (events of earlier versions)', () => {
    const s = fold(lobbyDecider, [createdPrivate, { type: 'LobbySettingsUpdated', data: { lobbyId: L, by: 'alice', changes: { isPrivate: false, code: null }, at: t1 } }]);
    expect(s).toMatchObject({ isPrivate: false, code: null });
  });

  it('records nothing when nothing changes', () => {
    given(lobbyDecider, [created]).when({ type: 'UpdateSettings', playerId: 'alice', name: 'Friday', maxPlayers: 3, isPrivate: false, now: t1 }).thenNothing();
  });
});

describe('KickPlayer', () => {
  it('lets the host remove a member', () => {
    const s = given(lobbyDecider, [created, bob]).when({ type: 'KickPlayer', playerId: 'alice', targetId: 'bob', now: t2 })
      .then([{ type: 'PlayerKicked', data: { lobbyId: L, playerId: 'bob', by: 'alice', at: t2 } }]);
    expect(s.status !== 'none' && s.players.map((p) => p.id)).toEqual(['alice']);
  });

  it('refuses a non-host (403)', () => {
    given(lobbyDecider, [created, bob, carol]).when({ type: 'KickPlayer', playerId: 'bob', targetId: 'carol', now: t2 }).thenError('forbidden', /host/);
  });

  it('is 404 when the target is not a member', () => {
    given(lobbyDecider, [created]).when({ type: 'KickPlayer', playerId: 'alice', targetId: 'bob', now: t2 }).thenError('not_found', /bob/);
  });

  it('refuses the host kicking themselves (422)', () => {
    const err = given(lobbyDecider, [created, bob]).when({ type: 'KickPlayer', playerId: 'alice', targetId: 'alice', now: t2 }).thenError('invalid', /host/);
    expect(err.detail).toEqual([{ loc: ['body', 'playerId'], msg: 'the host cannot kick themselves', type: 'value_error' }]);
  });
});

describe('TransferHost', () => {
  it('makes the target the host', () => {
    const s = given(lobbyDecider, [created, bob]).when({ type: 'TransferHost', playerId: 'alice', targetId: 'bob', now: t2 })
      .then([{ type: 'HostChanged', data: { lobbyId: L, from: 'alice', to: 'bob', reason: 'transferred', at: t2 } }]);
    expect(s).toMatchObject({ host: 'bob' });
  });

  it('refuses a non-host (403)', () => {
    given(lobbyDecider, [created, bob]).when({ type: 'TransferHost', playerId: 'bob', targetId: 'bob', now: t2 }).thenError('forbidden', /host/);
  });

  it('is 404 when the target is not a member', () => {
    given(lobbyDecider, [created]).when({ type: 'TransferHost', playerId: 'alice', targetId: 'bob', now: t2 }).thenError('not_found', /bob/);
  });
});

describe('StartGame, server lifecycle', () => {
  it('the host starts a waiting lobby: starting', () => {
    const s = given(lobbyDecider, [created, bob]).when({ type: 'StartGame', playerId: 'alice', now: t1 }).then([starting]);
    expect(s).toMatchObject({ status: 'starting', server: null });
  });

  it('refuses a non-host (403)', () => {
    given(lobbyDecider, [created, bob]).when({ type: 'StartGame', playerId: 'bob', now: t1 }).thenError('forbidden', /host/);
  });

  it('only starts from waiting (409)', () => {
    given(lobbyDecider, [created, starting]).when({ type: 'StartGame', playerId: 'alice', now: t2 }).thenError('conflict', /waiting/);
  });

  it('keeps starting with the server set when it is assigned', () => {
    const s = given(lobbyDecider, [created, starting]).when({ type: 'ServerAssigned', server, now: t1 }).then([assigned]);
    expect(s).toMatchObject({ status: 'starting', server });
  });

  it('ignores a repeated assignment of the same server', () => {
    given(lobbyDecider, [created, starting, assigned]).when({ type: 'ServerAssigned', server, now: t2 }).thenNothing();
  });

  it('refuses a server assignment outside starting (409)', () => {
    given(lobbyDecider, [created]).when({ type: 'ServerAssigned', server, now: t1 }).thenError('conflict', /not starting/);
  });

  describe("a server of the lobby's own launch that arrives after the lobby moved on", () => {
    const other = { instance_id: 'srv-2', status: 'starting' };
    const unneeded = (launch: number, srv = other): LobbyEvent => ({ type: 'LobbyServerUnneeded', data: { lobbyId: L, server: srv, launch, at: t2 } });
    const ended: LobbyEvent = { type: 'GameEnded', data: { lobbyId: L, reason: 'host', by: 'alice', at: t1 } };

    it('is recorded unneeded (for the lobby-launch workflow to stop it) when the lobby was deleted or ended, and changes nothing', () => {
      const s = given(lobbyDecider, [created, starting, deleted]).when({ type: 'ServerAssigned', server: other, launch: 1, now: t2 }).then([unneeded(1)]);
      expect(s).toMatchObject({ status: 'deleted', server: null });
      given(lobbyDecider, [created, starting, ended]).when({ type: 'ServerAssigned', server: other, launch: 1, now: t2 }).then([unneeded(1)]);
    });

    it('is recorded unneeded when the lobby is in a later launch or runs another server', () => {
      given(lobbyDecider, [created, starting, ended, starting]).when({ type: 'ServerAssigned', server: other, launch: 1, now: t2 }).then([unneeded(1)]);
      given(lobbyDecider, inGame).when({ type: 'ServerAssigned', server: other, launch: 1, now: t2 }).then([unneeded(1)]);
    });

    it('is assigned as usual in its own launch, and a repeat of the server in use changes nothing', () => {
      given(lobbyDecider, [created, starting]).when({ type: 'ServerAssigned', server, launch: 1, now: t1 }).then([assigned]);
      given(lobbyDecider, inGame).when({ type: 'ServerAssigned', server, launch: 1, now: t2 }).thenNothing();
    });

    it('a lobby that never existed is a 404, and a match\'s assignment (no launch) is still refused outside starting', () => {
      given(lobbyDecider, []).when({ type: 'ServerAssigned', server: other, launch: 1, now: t2 }).thenError('not_found', /lobby/);
      given(lobbyDecider, [created, starting, deleted]).when({ type: 'ServerAssigned', server: other, now: t2 }).thenError('not_found', /lobby/);
    });
  });

  it('goes in_game when the server runs', () => {
    const s = given(lobbyDecider, [created, starting, assigned]).when({ type: 'ServerRunning', now: t2 }).then([running]);
    expect(s).toMatchObject({ status: 'in_game', server });
  });

  it('the running report updates the assigned view (status, ports) and keeps the rest; a report of another server is refused (409)', () => {
    const report = { instance_id: 'srv-1', status: 'running', network_ports: [{ external_port: 7001 }] };
    const s = given(lobbyDecider, [created, starting, assigned]).when({ type: 'ServerRunning', server: report, now: t2 }).then([
      { type: 'GameStarted', data: { lobbyId: running.data.lobbyId, server: { ...server, ...report }, at: t2 } },
    ]);
    expect(s).toMatchObject({ status: 'in_game', server: { host: '10.0.0.1', status: 'running' } });
    given(lobbyDecider, [created, starting, assigned]).when({ type: 'ServerRunning', server: { instance_id: 'srv-2' }, now: t2 }).thenError('conflict', /srv-1/);
  });

  it('refuses server running without an assigned server (409)', () => {
    given(lobbyDecider, [created, starting]).when({ type: 'ServerRunning', now: t2 }).thenError('conflict', /no server/);
  });

  it('returns to waiting with the server cleared when the server stops on its own', () => {
    const s = given(lobbyDecider, inGame).when({ type: 'ServerStopped', instanceId: 'srv-1', now: t2 })
      .then([{ type: 'GameEnded', data: { lobbyId: L, reason: 'server_stopped', by: null, at: t2 } }]);
    expect(s).toMatchObject({ status: 'waiting', server: null });
    expect(s.status !== 'none' && s.players.map((p) => p.id)).toEqual(['alice', 'bob']);
  });

  it('ignores the stop of a server the lobby does not use', () => {
    given(lobbyDecider, inGame).when({ type: 'ServerStopped', instanceId: 'srv-old', now: t2 }).thenNothing();
    given(lobbyDecider, [created]).when({ type: 'ServerStopped', instanceId: 'srv-1', now: t2 }).thenNothing();
  });

  it('ignores a late stop of the last game\'s server while the next start has no server yet', () => {
    const ended = { type: 'GameEnded', data: { lobbyId: L, reason: 'host', by: 'alice', at: t2 } } as LobbyEvent;
    const again = { type: 'GameStarting', data: { lobbyId: L, by: 'alice', at: t2 } } as LobbyEvent;
    given(lobbyDecider, [...inGame, ended, again]).when({ type: 'ServerStopped', instanceId: 'srv-1', now: t2 }).thenNothing();
    // a stop with no instance (the launch itself failed) still hands the lobby back
    given(lobbyDecider, [...inGame, ended, again]).when({ type: 'ServerStopped', now: t2 })
      .then([{ type: 'GameEnded', data: { lobbyId: L, reason: 'server_stopped', by: null, at: t2 } }]);
  });

  it("an abandoned start (instanceId '': no server) returns a lobby still without a server to waiting, and leaves one with a server alone", () => {
    const s = given(lobbyDecider, [created, starting]).when({ type: 'ServerStopped', instanceId: '', now: t2 })
      .then([{ type: 'GameEnded', data: { lobbyId: L, reason: 'server_stopped', by: null, at: t2 } }]);
    expect(s).toMatchObject({ status: 'waiting', server: null });
    given(lobbyDecider, [created, starting, assigned]).when({ type: 'ServerStopped', instanceId: '', now: t2 }).thenNothing();
  });
});

describe('EndMatch', () => {
  it('the host ends the match: waiting, server cleared, players and settings kept', () => {
    const history = [...inGame, { type: 'PlayerStateUpdated', data: { lobbyId: L, playerId: 'bob', state: { ready: true }, at: t2 } } as LobbyEvent];
    const s = given(lobbyDecider, history).when({ type: 'EndMatch', playerId: 'alice', now: t2 })
      .then([{ type: 'GameEnded', data: { lobbyId: L, reason: 'host', by: 'alice', at: t2 } }]);
    expect(s).toMatchObject({ status: 'waiting', server: null, host: 'alice', settings: { map: 'dust' } });
    expect(s.status !== 'none' && s.players.map((p) => [p.id, p.state])).toEqual([['alice', { ready: false }], ['bob', { ready: true }]]);
  });

  it('refuses a non-host (403)', () => {
    given(lobbyDecider, inGame).when({ type: 'EndMatch', playerId: 'bob', now: t2 }).thenError('forbidden', /host/);
  });

  it('refuses outside in_game (409)', () => {
    given(lobbyDecider, [created]).when({ type: 'EndMatch', playerId: 'alice', now: t2 }).thenError('conflict', /in_game/);
    given(lobbyDecider, [created, starting]).when({ type: 'EndMatch', playerId: 'alice', now: t2 }).thenError('conflict', /in_game/);
  });
});

describe('DeleteLobby', () => {
  it('deletes a live lobby with the given reason', () => {
    const s = given(lobbyDecider, [created, bob]).when({ type: 'DeleteLobby', reason: 'admin', now: t1 }).then([deleted]);
    expect(s).toMatchObject({ status: 'deleted', deleteReason: 'admin', players: [] });
  });

  it('deletes an idle lobby', () => {
    given(lobbyDecider, [created]).when({ type: 'DeleteLobby', reason: 'idle', now: t2 })
      .then([{ type: 'LobbyDeleted', data: { lobbyId: L, reason: 'idle', at: t2 } }]);
  });

  it('is 404 on a missing or deleted lobby', () => {
    given(lobbyDecider).when({ type: 'DeleteLobby', reason: 'admin', now: t1 }).thenError('not_found', /lobby/);
    given(lobbyDecider, [created, deleted]).when({ type: 'DeleteLobby', reason: 'admin', now: t2 }).thenError('not_found', /lobby/);
  });
});


describe('RemoveStalePlayers', () => {
  it('removes silent members like a leave, in join order', () => {
    const s = given(lobbyDecider, [created, bob, carol]).when({ type: 'RemoveStalePlayers', playerIds: ['carol', 'bob'], hostLeaveBehavior: 'promote', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'bob', reason: 'timeout', at: t2 } },
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'carol', reason: 'timeout', at: t2 } },
    ]);
    expect(s.status !== 'none' && s.players.map((p) => p.id)).toEqual(['alice']);
  });

  it('promotes the oldest remaining player when the host is removed', () => {
    const s = given(lobbyDecider, [created, bob, carol]).when({ type: 'RemoveStalePlayers', playerIds: ['alice', 'bob'], hostLeaveBehavior: 'promote', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'alice', reason: 'timeout', at: t2 } },
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'bob', reason: 'timeout', at: t2 } },
      { type: 'HostChanged', data: { lobbyId: L, from: 'alice', to: 'carol', reason: 'promoted', at: t2 } },
    ]);
    expect(s).toMatchObject({ host: 'carol' });
  });

  it('closes the lobby when the host is removed under close', () => {
    given(lobbyDecider, [created, bob]).when({ type: 'RemoveStalePlayers', playerIds: ['alice'], hostLeaveBehavior: 'close', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'alice', reason: 'timeout', at: t2 } },
      { type: 'LobbyDeleted', data: { lobbyId: L, reason: 'host_left', at: t2 } },
    ]);
  });

  it('deletes the lobby when everyone is removed', () => {
    const s = given(lobbyDecider, [created, bob]).when({ type: 'RemoveStalePlayers', playerIds: ['alice', 'bob'], hostLeaveBehavior: 'promote', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'alice', reason: 'timeout', at: t2 } },
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'bob', reason: 'timeout', at: t2 } },
      { type: 'LobbyDeleted', data: { lobbyId: L, reason: 'empty', at: t2 } },
    ]);
    expect(s).toMatchObject({ status: 'deleted', deleteReason: 'empty' });
  });

  it('ignores ids that are no longer members', () => {
    given(lobbyDecider, [created]).when({ type: 'RemoveStalePlayers', playerIds: ['bob'], hostLeaveBehavior: 'promote', now: t2 }).thenNothing();
  });
});

describe('deciding is pure', () => {
  it('gives the same events for the same history and command', () => {
    const state = fold(lobbyDecider, [created, bob]);
    const cmd = { type: 'LeaveLobby' as const, playerId: 'alice', hostLeaveBehavior: 'promote' as const, now: t2 };
    expect(lobbyDecider.decide(cmd, state)).toEqual(lobbyDecider.decide(cmd, state));
    expect(fold(lobbyDecider, [created, bob])).toEqual(state);
  });
});
