import { LobbyEvent } from '../lobby';
import { ServerEvent, ServerLaunch } from '../server';
import { lobbyServerWorkflow as follow } from './lobby-server';
import { givenWorkflow } from './testing';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:00:02.000Z';
const t2 = '2026-11-21T10:30:00.000Z';
const ports = [{ name: 'game', internal_port: 7777, external_port: 7001, protocol: 'udp' as const, host: '127.0.0.1', tls_enabled: false }];
const launch: ServerLaunch = {
  serverId: 's1', projectId: 'p1', name: 'lobby-l1', region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 1, buildId: 'b1',
  networkPorts: ports, startupArgs: null, serviceType: 'match_based', autoRestart: false, customData: { lobby_id: 'l1' }, ttl: 3600,
  matchId: 'l1', environmentVariables: {}, isPoolServer: false,
};
const started: ServerEvent = { type: 'ServerStarted', data: { ...launch, at: t0 } };
const running: ServerEvent = { type: 'ServerRunning', data: { serverId: 's1', at: t1 } };
const stopped = (reason: 'START_FAILED' | 'TTL_EXPIRED'): ServerEvent => ({ type: 'ServerStopped', data: { serverId: 's1', reason, exitCode: null, at: t2 } });
const assigned = (lobbyId: string): LobbyEvent => ({ type: 'LobbyServerAssigned', data: { lobbyId, server: { instance_id: 's1' }, at: t0 } });
const lobby = (id: string) => ({ aggregate: 'lobby', id, projectId: 'p1' });
const inGame = (lobbyId: string, now: string) => ({
  kind: 'command', target: lobby(lobbyId), key: `lobby-server:s1:${lobbyId}:running:1`,
  command: { type: 'ServerRunning', server: { instance_id: 's1', status: 'running', network_ports: ports, started_at: t1 }, now },
});
const backToWaiting = (lobbyId: string) => ({
  kind: 'command', target: lobby(lobbyId), key: `lobby-server:s1:${lobbyId}:stopped`, command: { type: 'ServerStopped', instanceId: 's1', now: t2 },
});

describe('Lobby server workflow', () => {
  it('routes server events by server id and an assignment by the assigned server', () => {
    expect(follow.route(running)).toEqual(['s1']);
    expect(follow.route(assigned('l1'))).toEqual(['s1']);
    expect(follow.route({ type: 'PlayerJoined', data: { lobbyId: 'l1', playerId: 'p', state: {}, at: t0 } })).toEqual([]);
    // what never moves a lobby costs nothing: a claim, new custom data, a game's status report
    expect(follow.route({ type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'x', customData: null, ttl: null, matchId: 'm', at: t1 } })).toEqual([]);
    expect(follow.route({ type: 'ServerCustomDataUpdated', data: { serverId: 's1', customData: {}, at: t1 } })).toEqual([]);
    // a server's first event starts its instance (no state to read); the others do not
    expect([started, running, assigned('l1')].map((e) => follow.startsOver!(e))).toEqual([true, false, false]);
  });

  it('ServerRunning marks the assigned lobby in_game with the server and its ports', () => {
    givenWorkflow(follow, [started, assigned('l1')]).when(running).then([inGame('l1', t1) as never]);
  });

  it('an assignment seen after the server already runs marks the lobby in_game at once (same key)', () => {
    givenWorkflow(follow, [started, running]).when(assigned('l1')).then([inGame('l1', t0) as never]);
  });

  it('START_FAILED sends the lobby back to waiting', () => {
    givenWorkflow(follow, [started, assigned('l1')]).when(stopped('START_FAILED')).then([backToWaiting('l1') as never]);
  });

  it('a server stop sends EVERY lobby of that server back to waiting, not just the first', () => {
    givenWorkflow(follow, [started, assigned('l1'), assigned('l2'), running, assigned('l3')])
      .when(stopped('TTL_EXPIRED')).then([backToWaiting('l1'), backToWaiting('l2'), backToWaiting('l3')] as never);
  });

  it('an assignment to a server that already stopped sends the lobby back to waiting', () => {
    givenWorkflow(follow, [started, stopped('START_FAILED')]).when(assigned('l1')).then([{ ...backToWaiting('l1'), command: { type: 'ServerStopped', instanceId: 's1', now: t0 } } as never]);
  });

  it('a late running report after the stop moves no lobby; a server without lobbies moves none', () => {
    givenWorkflow(follow, [started, assigned('l1'), stopped('TTL_EXPIRED')]).when(running).thenNothing();
    givenWorkflow(follow, [started]).when(running).thenNothing();
  });

  it('a crash restart that runs again is a new run (a new key)', () => {
    const crashed: ServerEvent = { type: 'ServerCrashed', data: { serverId: 's1', exitCode: 1, attempt: 1, at: t1 } };
    const { state } = givenWorkflow(follow, [started, assigned('l1'), running, crashed]).when(running);
    expect(follow.react(state, running)).toMatchObject([{ key: 'lobby-server:s1:l1:running:2' }]);
  });

  it('a claim released back to the pool (a lease on a resettable game) tells its lobbies as a stop; the next claim starts afresh', () => {
    const released: ServerEvent = { type: 'ServerPoolReleased', data: { serverId: 's1', name: 'pool-eu-west', matchId: 'released:s1', reason: 'CLAIM_LEASE_EXPIRED', at: t2 } };
    expect(follow.route(released)).toEqual(['s1']);
    givenWorkflow(follow, [started, running, assigned('l1'), assigned('l2')]).when(released).then([
      { kind: 'command', target: lobby('l1'), key: 'lobby-server:s1:l1:released:1', command: { type: 'ServerStopped', instanceId: 's1', now: t2 } },
      { kind: 'command', target: lobby('l2'), key: 'lobby-server:s1:l2:released:1', command: { type: 'ServerStopped', instanceId: 's1', now: t2 } },
    ] as never);
    // Claimed again, by l1 itself: in_game at once under a key of its own (the first claim's key was used).
    const again = givenWorkflow(follow, [started, running, assigned('l1'), released]).when(assigned('l1'));
    again.then([{ ...inGame('l1', t0), key: 'lobby-server:s1:l1:running:1:1' } as never]);
    // A stop after the release tells only the lobby that holds it now.
    givenWorkflow(follow, [started, running, assigned('l1'), released, assigned('l3')]).when(stopped('TTL_EXPIRED'))
      .then([{ ...backToWaiting('l3'), key: 'lobby-server:s1:l3:stopped:1' }] as never);
  });
});
