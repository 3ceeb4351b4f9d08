import { LobbyEvent } from '../lobby';
import { givenWorkflow } from './testing';
import { LOBBY_LAUNCH_CHECK_MS, LOBBY_LAUNCH_TIMEOUT_MS, lobbyLaunchWorkflow as launch, LobbyLaunchCheck, LobbyLaunchTimedOut } from './lobby-launch';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:00:05.000Z';
const deadline = new Date(Date.parse(t1) + LOBBY_LAUNCH_TIMEOUT_MS).toISOString();
const created: LobbyEvent = {
  type: 'LobbyCreated',
  data: {
    lobbyId: 'l1', projectId: 'p1', config: 'duel', code: null, hostId: 'alice', name: null, maxPlayers: 2, region: 'eu-west', isPrivate: false,
    allowLateJoin: false, settings: {}, hostState: {}, at: t0,
  },
};
const starting: LobbyEvent = { type: 'GameStarting', data: { lobbyId: 'l1', by: 'alice', at: t1 } };
const assigned: LobbyEvent = { type: 'LobbyServerAssigned', data: { lobbyId: 'l1', server: { instance_id: 's1' }, at: t1 } };
const ended: LobbyEvent = { type: 'GameEnded', data: { lobbyId: 'l1', reason: 'server_stopped', by: null, at: t1 } };
const checkAt = new Date(Date.parse(t1) + LOBBY_LAUNCH_CHECK_MS).toISOString();
const check = (attempt: number): LobbyLaunchCheck => ({ type: 'LobbyLaunchCheck', data: { lobbyId: 'l1', attempt, at: checkAt } });
const timedOut = (attempt: number): LobbyLaunchTimedOut => ({ type: 'LobbyLaunchTimedOut', data: { lobbyId: 'l1', attempt, at: deadline } });

describe('Lobby launch workflow', () => {
  it('GameStarting sets the launch check (the direct start launches; nothing is sent twice while it may still answer)', () => {
    givenWorkflow(launch, [created]).when(starting).then([{ kind: 'timer', id: 'lobby-launch:l1', at: checkAt, then: check(1) }]);
  });

  it('still no server at the check: the launch is sent again, keyed by lobby and attempt, and the timeout set', () => {
    givenWorkflow(launch, [created, starting]).when(check(1)).then([
      {
        kind: 'command', target: { request: 'StartLobbyServer', projectId: null },
        command: { type: 'StartLobbyServer', lobbyId: 'l1', attempt: 1, now: checkAt }, key: 'lobby-launch:l1:1',
      },
      { kind: 'timer', id: 'lobby-launch:l1', at: deadline, then: timedOut(1) },
    ]);
  });

  it('a second launch after the first ended is a new attempt with a new key', () => {
    const { state } = givenWorkflow(launch, [created, starting, ended, starting]).when(check(2));
    expect(launch.react(state, check(2))[0]).toMatchObject({ key: 'lobby-launch:l1:2', command: { attempt: 2 } });
  });

  it('a check of an earlier attempt, or after a server was assigned, does nothing', () => {
    givenWorkflow(launch, [created, starting, ended, starting]).when(check(1)).thenNothing();
    givenWorkflow(launch, [created, starting, assigned]).when(check(1)).thenNothing();
  });

  it('a server assigned cancels the launch timeout (the server lifecycle takes over)', () => {
    givenWorkflow(launch, [created, starting]).when(assigned).then([{ kind: 'cancel-timer', id: 'lobby-launch:l1' }]);
  });

  it('the game ending cancels the launch timeout', () => {
    givenWorkflow(launch, [created, starting]).when(ended).then([{ kind: 'cancel-timer', id: 'lobby-launch:l1' }]);
  });

  it('no server within the timeout: the lobby goes back to waiting (a stop of no server, so an assignment not yet seen wins)', () => {
    givenWorkflow(launch, [created, starting]).when(timedOut(1)).then([{
      kind: 'command', target: { aggregate: 'lobby', id: 'l1', projectId: null },
      command: { type: 'ServerStopped', instanceId: '', now: deadline }, key: 'lobby-launch:l1:1:timed-out',
    }]);
  });

  it('a timeout of an earlier attempt, or after a server was assigned, does nothing', () => {
    givenWorkflow(launch, [created, starting, ended, starting]).when(timedOut(1)).thenNothing();
    givenWorkflow(launch, [created, starting, assigned]).when(timedOut(1)).thenNothing();
  });

  it('routes only the events of a launch: a join or a state change reaches no instance', () => {
    expect(launch.route(starting)).toEqual(['l1']);
    expect(launch.route(timedOut(1))).toEqual(['l1']);
    expect(launch.route(created)).toEqual([]);
    expect(launch.route({ type: 'PlayerJoined', data: { lobbyId: 'l1', playerId: 'bob', state: {}, at: t1 } })).toEqual([]);
    // A deletion is routed: it may stop the lobby's server (below).
    expect(launch.route({ type: 'LobbyDeleted', data: { lobbyId: 'l1', reason: 'admin', at: t1 } })).toEqual(['l1']);
  });

  describe('the lobby server stop (issue 36 item 5: a durable intent, never fire-and-forget)', () => {
    const started: LobbyEvent = { type: 'GameStarted', data: { lobbyId: 'l1', at: t1 } };
    const hostEnded: LobbyEvent = { type: 'GameEnded', data: { lobbyId: 'l1', reason: 'host', by: 'alice', at: t1 } };
    const deleted: LobbyEvent = { type: 'LobbyDeleted', data: { lobbyId: 'l1', reason: 'admin', at: t1 } };
    const matched: LobbyEvent = { type: 'LobbyMatched', data: { lobbyId: 'l1', matchId: 'm1', at: t1 } };
    const stop = {
      kind: 'command', target: { request: 'StopLobbyServer', projectId: null },
      command: { type: 'StopLobbyServer', lobbyId: 'l1', serverId: 's1', now: t1 }, key: 'lobby-launch:l1:1:stop',
    };
    const cancel = { kind: 'cancel-timer', id: 'lobby-launch:l1' };

    it('the host ends the match: its server is stopped, keyed by the launch', () => {
      givenWorkflow(launch, [created, starting, assigned, started]).when(hostEnded).then([cancel, stop]);
    });

    it('the lobby is deleted while its game runs (or starts): its server is stopped', () => {
      givenWorkflow(launch, [created, starting, assigned, started]).when(deleted).then([cancel, stop]);
      givenWorkflow(launch, [created, starting, assigned]).when(deleted).then([cancel, stop]);
    });

    it('the game ended on its own (the server stopped): nothing to stop, neither then nor at a later delete', () => {
      givenWorkflow(launch, [created, starting, assigned, started]).when(ended).then([cancel]);
      givenWorkflow(launch, [created, starting, assigned, started, ended]).when(deleted).then([cancel]);
    });

    it('after the host ended the match, a later delete sends no second stop', () => {
      givenWorkflow(launch, [created, starting, assigned, started, hostEnded]).when(deleted).then([cancel]);
    });

    it("a matchmade lobby's server is the match's to stop", () => {
      givenWorkflow(launch, [created, matched, starting, assigned, started]).when(hostEnded).then([cancel]);
      givenWorkflow(launch, [created, starting, assigned, started]).when({ ...hostEnded, data: { ...hostEnded.data, matchId: 'm1' } } as LobbyEvent).then([cancel]);
      givenWorkflow(launch, [created, matched, starting, assigned, started]).when(deleted).then([cancel]);
    });

    it('a server of its launch that arrived after the lobby moved on is stopped, keyed by the launch and the server', () => {
      const unneeded: LobbyEvent = { type: 'LobbyServerUnneeded', data: { lobbyId: 'l1', server: { instance_id: 's9' }, launch: 1, at: t1 } };
      expect(launch.route(unneeded)).toEqual(['l1']);
      givenWorkflow(launch, [created, starting, deleted]).when(unneeded).then([{
        kind: 'command', target: { request: 'StopLobbyServer', projectId: null },
        command: { type: 'StopLobbyServer', lobbyId: 'l1', serverId: 's9', now: t1 }, key: 'lobby-launch:l1:1:unneeded:s9',
      }]);
    });
  });
});
