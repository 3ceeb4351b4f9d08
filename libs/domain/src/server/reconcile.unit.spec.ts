import { given } from '../kit/testing';
import { planReconcile, serverDecider, ServerLaunch } from '.';

describe('Reconciling machines with the store on start', () => {
  it('adopts the machines of live servers, launching ones included', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'running' }, { serverId: 'b', status: 'launching' }],
      machines: ['b', 'a'],
    })).toEqual({ adopt: ['a', 'b'], stop: [], lost: [], takeOver: [] });
  });

  it('stops machines whose server is stopped or unknown to the store', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'stopped' }, { serverId: 'c', status: 'none' }],
      machines: ['a', 'b', 'c'],
    })).toEqual({ adopt: [], stop: ['a', 'b', 'c'], lost: [], takeOver: [] });
  });

  it('marks live servers without a machine lost, and leaves stopped ones alone', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'running' }, { serverId: 'b', status: 'launching' }, { serverId: 'c', status: 'stopped' }],
      machines: [],
    })).toEqual({ adopt: [], stop: [], lost: ['a', 'b'], takeOver: [] });
  });

  it('sorts every server into exactly one list', () => {
    const plan = planReconcile({
      servers: [{ serverId: 'run', status: 'running' }, { serverId: 'gone', status: 'running' }, { serverId: 'old', status: 'stopped' }],
      machines: ['run', 'old', 'stray'],
    });
    expect(plan).toEqual({ adopt: ['run'], stop: ['old', 'stray'], lost: ['gone'], takeOver: [] });
  });
});

describe('Reconciling with several servers replicas (ADR-0021)', () => {
  it('leaves the live servers of another instance that heartbeats alone', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'running', owner: 'live' }, { serverId: 'b', status: 'launching', owner: 'live' }],
      machines: [],
    })).toEqual({ adopt: [], stop: [], lost: [], takeOver: [] });
  });

  it('takes over the live servers of an owner whose lease expired, and records them lost when it has no machine for them', () => {
    expect(planReconcile({
      servers: [{ serverId: 'a', status: 'running', owner: 'expired' }, { serverId: 'b', status: 'stopped', owner: 'expired' }],
      machines: [],
    })).toEqual({ adopt: [], stop: [], lost: ['a'], takeOver: ['a'] });
  });

  it('adopts its own machines and records its own lost ones, among servers of other owners', () => {
    expect(planReconcile({
      servers: [
        { serverId: 'mine', status: 'running', owner: 'mine' }, { serverId: 'gone', status: 'launching', owner: 'mine' },
        { serverId: 'theirs', status: 'running', owner: 'live' }, { serverId: 'dead', status: 'running', owner: 'expired' },
      ],
      machines: ['mine'],
    })).toEqual({ adopt: ['mine'], stop: [], lost: ['dead', 'gone'], takeOver: ['dead'] });
  });

  it('leaves a machine of a live other owner alone (Kubernetes sees every pod) and adopts one of an expired owner', () => {
    expect(planReconcile({
      servers: [{ serverId: 'theirs', status: 'running', owner: 'live' }, { serverId: 'dead', status: 'running', owner: 'expired' }],
      machines: ['theirs', 'dead'],
    })).toEqual({ adopt: ['dead'], stop: [], lost: [], takeOver: ['dead'] });
  });

  it('treats a server without a recorded owner as its own (servers from before ownership)', () => {
    expect(planReconcile({ servers: [{ serverId: 'a', status: 'running' }], machines: [] }))
      .toEqual({ adopt: [], stop: [], lost: ['a'], takeOver: [] });
  });
});

describe('Reconciling on Kubernetes, one owner per servers pod (ADR-0021)', () => {
  // Every replica sees every pod of its regions; a rolling upgrade gives each replica a new name (a new owner).
  it('given an owner renamed by an upgrade whose lease expired, when a replica reconciles, then it adopts that owner\'s pods and records lost only the servers without one', () => {
    expect(planReconcile({
      servers: [
        { serverId: 'runs-on', status: 'running', owner: 'expired' }, { serverId: 'starting', status: 'launching', owner: 'expired' },
        { serverId: 'no-pod', status: 'running', owner: 'expired' },
      ],
      machines: ['runs-on', 'starting'],
    })).toEqual({ adopt: ['runs-on', 'starting'], stop: [], lost: ['no-pod'], takeOver: ['runs-on', 'starting', 'no-pod'] });
  });

  it('given a live owner launching a server whose pod is not created yet, when a new replica reconciles, then it touches neither that server nor that owner\'s pods', () => {
    expect(planReconcile({
      servers: [{ serverId: 'creating', status: 'launching', owner: 'live' }, { serverId: 'theirs', status: 'running', owner: 'live' }],
      machines: ['theirs'],
    })).toEqual({ adopt: [], stop: [], lost: [], takeOver: [] });
  });

  it('given a replica restarted under the same pod name, when it reconciles, then it adopts its own pods without a take-over', () => {
    expect(planReconcile({
      servers: [{ serverId: 'mine', status: 'running', owner: 'mine' }, { serverId: 'creating', status: 'launching', owner: 'mine' }],
      machines: ['mine'],
    })).toEqual({ adopt: ['mine'], stop: [], lost: ['creating'], takeOver: [] });
  });

  it('given an expired owner\'s pod whose server stopped while nobody watched, when a replica reconciles, then the pod is deleted and nothing is taken over', () => {
    expect(planReconcile({
      servers: [{ serverId: 'ended', status: 'stopped', owner: 'expired' }],
      machines: ['ended'],
    })).toEqual({ adopt: [], stop: ['ended'], lost: [], takeOver: [] });
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
