import { given } from '../kit/testing';
import { planReconcile, serverDecider, ServerLaunch } from '.';

describe('Reconciling machines with the store on start', () => {
  it('adopts the machines of live servers, launching ones included', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'running' }, { serverId: 'b', status: 'launching' }],
      machines: ['b', 'a'],
    })).toEqual({ adopt: ['a', 'b'], stop: [], lost: [] });
  });

  it('stops machines whose server is stopped or unknown to the store', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'stopped' }, { serverId: 'c', status: 'none' }],
      machines: ['a', 'b', 'c'],
    })).toEqual({ adopt: [], stop: ['a', 'b', 'c'], lost: [] });
  });

  it('marks live servers without a machine lost, and leaves stopped ones alone', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'running' }, { serverId: 'b', status: 'launching' }, { serverId: 'c', status: 'stopped' }],
      machines: [],
    })).toEqual({ adopt: [], stop: [], lost: ['a', 'b'] });
  });

  it('sorts every server into exactly one list', () => {
    const plan = planReconcile({
      servers: [{ serverId: 'run', status: 'running' }, { serverId: 'gone', status: 'running' }, { serverId: 'old', status: 'stopped' }],
      machines: ['run', 'old', 'stray'],
    });
    expect(plan).toEqual({ adopt: ['run'], stop: ['old', 'stray'], lost: ['gone'] });
  });
});

describe('A server whose machine was lost', () => {
  const launch: ServerLaunch = {
    serverId: 's1', projectId: 'p', name: 'match', region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 1, buildId: 'b1',
    networkPorts: [], startupArgs: null, serviceType: 'match_based', autoRestart: true, customData: null, ttl: null,
    matchId: 'm1', environmentVariables: {}, isPoolServer: false,
  };
  const t0 = '2026-11-24T10:00:00.000Z';
  const t1 = '2026-11-24T10:01:00.000Z';

  it('is stopped with reason MACHINE_LOST, even with auto_restart (no crash restart)', () => {
    given(serverDecider, [{ type: 'ServerStarted', data: { ...launch, at: t0 } }, { type: 'ServerRunning', data: { serverId: 's1', at: t0 } }])
      .when({ type: 'RecordExit', reason: 'MACHINE_LOST', exitCode: null, now: t1 })
      .then([{ type: 'ServerStopped', data: { serverId: 's1', reason: 'MACHINE_LOST', exitCode: null, at: t1 } }]);
  });
});
