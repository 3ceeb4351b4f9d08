import { MAX_AUTO_RESTARTS, ServerEvent, ServerLaunch } from '../server';
import { SERVER_STARTUP_TIMEOUT_MS, serverLifecycleWorkflow as lifecycle, ServerStartupTimedOut, ServerTtlExpired } from './server-lifecycle';
import { givenWorkflow } from './testing';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:00:10.000Z';
const t2 = '2026-11-21T10:05:00.000Z';
const plus = (at: string, ms: number) => new Date(Date.parse(at) + ms).toISOString();
const launch: ServerLaunch = {
  serverId: 's1', projectId: 'p1', name: 'match', region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 1, buildId: 'b1',
  networkPorts: [], startupArgs: null, serviceType: 'match_based', autoRestart: true, customData: null, ttl: 600,
  matchId: 'm1', environmentVariables: {}, isPoolServer: false,
};
const started: ServerEvent = { type: 'ServerStarted', data: { ...launch, at: t0 } };
const pool: ServerEvent = { type: 'ServerStarted', data: { ...launch, isPoolServer: true, ttl: null, autoRestart: false, at: t0 } };
const running: ServerEvent = { type: 'ServerRunning', data: { serverId: 's1', at: t1 } };
const stopped: ServerEvent = { type: 'ServerStopped', data: { serverId: 's1', reason: 'SHUTDOWN_SIGNAL', exitCode: null, at: t2 } };
const crashed = (attempt: number): ServerEvent => ({ type: 'ServerCrashed', data: { serverId: 's1', exitCode: 1, attempt, at: t2 } });
const server = { aggregate: 'server', id: 's1', projectId: 'p1' };
const ttlAt = plus(t1, 600_000);
const ttlExpired = (at: string): ServerTtlExpired => ({ type: 'ServerTtlExpired', data: { serverId: 's1', at } });
const startupTimer = (at: string, launch: number) => {
  const due = plus(at, SERVER_STARTUP_TIMEOUT_MS);
  const then: ServerStartupTimedOut = { type: 'ServerStartupTimedOut', data: { serverId: 's1', launch, at: due } };
  return { kind: 'timer' as const, id: 'server-startup:s1', at: due, then };
};

describe('Server lifecycle workflow: instances', () => {
  it("a server's first event starts its instance (no state to read); later ones do not", () => {
    expect([started, pool, running, stopped, crashed(1)].map((e) => lifecycle.startsOver!(e))).toEqual([true, true, false, false, false]);
  });
});

describe('Server lifecycle workflow: startup timeout', () => {
  it('a launch sets the startup timer', () => {
    givenWorkflow(lifecycle).when(started).then([startupTimer(t0, 1)]);
  });

  it('running cancels it (and sets the TTL timer)', () => {
    givenWorkflow(lifecycle, [started]).when(running).then([
      { kind: 'cancel-timer', id: 'server-startup:s1' },
      { kind: 'timer', id: 'server-ttl:s1', at: ttlAt, then: ttlExpired(ttlAt) },
    ]);
  });

  it('still launching when it fires: the server is stopped with STARTUP_FAILURE_TIMEOUT', () => {
    const fired = startupTimer(t0, 1).then;
    givenWorkflow(lifecycle, [started]).when(fired).then([{
      kind: 'command', target: server, command: { type: 'StopServer', reason: 'STARTUP_FAILURE_TIMEOUT', now: fired.data.at }, key: 'server-startup:s1:1',
    }]);
  });

  it('a timer of an earlier launch, or one firing after the server ran, does nothing', () => {
    givenWorkflow(lifecycle, [started, running]).when(startupTimer(t0, 1).then).thenNothing();
    givenWorkflow(lifecycle, [started, running, crashed(1)]).when(startupTimer(t0, 1).then).thenNothing();
  });
});

describe('Server lifecycle workflow: TTL', () => {
  it('expires at the deadline: the server is stopped with TTL_EXPIRED', () => {
    givenWorkflow(lifecycle, [started, running]).when(ttlExpired(ttlAt)).then([{
      kind: 'command', target: server, command: { type: 'StopServer', reason: 'TTL_EXPIRED', now: ttlAt }, key: `server-ttl:s1:${ttlAt}`,
    }]);
  });

  it('the timer moves when the deadline moves (a pool claim starts the claimer\'s ttl)', () => {
    const claimed: ServerEvent = { type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'mine', customData: null, ttl: 60, matchId: 'm2', at: t2 } };
    const { state } = givenWorkflow(lifecycle, [pool, running]).when(claimed);
    expect(lifecycle.react(state, claimed)).toContainEqual({ kind: 'timer', id: 'server-ttl:s1', at: plus(t2, 60_000), then: ttlExpired(plus(t2, 60_000)) });
  });

  it('a stale timer (the deadline moved since) does nothing; stopping cancels both timers', () => {
    givenWorkflow(lifecycle, [started, running]).when(ttlExpired(plus(ttlAt, -1000))).thenNothing();
    givenWorkflow(lifecycle, [started, running]).when(stopped).then([
      { kind: 'cancel-timer', id: 'server-startup:s1' },
      { kind: 'cancel-timer', id: 'server-ttl:s1' },
    ]);
    givenWorkflow(lifecycle, [started, running, stopped]).when(ttlExpired(ttlAt)).thenNothing();
  });
});

describe('Server lifecycle workflow: auto-restart', () => {
  it('a crash with auto_restart starts the game again, keyed by attempt, and times the new start', () => {
    givenWorkflow(lifecycle, [started, running]).when(crashed(1)).then([startupTimer(t2, 2), {
      kind: 'command', target: { request: 'RestartCrashedServer', projectId: 'p1' },
      command: { type: 'RestartCrashedServer', projectId: 'p1', serverId: 's1', attempt: 1, now: t2 }, key: 'server-crash-restart:s1:0:1',
    }]);
  });

  it('is bounded: past MAX_AUTO_RESTARTS the decider stops the server, and nothing restarts it', () => {
    const history = [started, running, ...Array.from({ length: MAX_AUTO_RESTARTS }, (_, i) => crashed(i + 1))];
    const exited: ServerEvent = { type: 'ServerStopped', data: { serverId: 's1', reason: 'PROCESS_EXITED', exitCode: 1, at: t2 } };
    givenWorkflow(lifecycle, history).when(exited).then([{ kind: 'cancel-timer', id: 'server-startup:s1' }, { kind: 'cancel-timer', id: 'server-ttl:s1' }]);
  });

  it('without auto_restart a crash restarts nothing', () => {
    const manual: ServerEvent = { type: 'ServerStarted', data: { ...launch, autoRestart: false, at: t0 } };
    givenWorkflow(lifecycle, [manual, running]).when(crashed(1)).thenNothing();
  });
});

describe('Server lifecycle workflow: pool refill', () => {
  const refill = (now: string) => ({
    kind: 'command', target: { request: 'RefillPool', projectId: 'p1' },
    command: { type: 'RefillPool', projectId: 'p1', region: 'eu-west', computeSize: 'small', replacing: 's1', now }, key: 'pool-refill:s1',
  });

  it('a claimed pool server is replaced in its region', () => {
    const claimed: ServerEvent = { type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'mine', customData: null, ttl: null, matchId: 'm2', at: t2 } };
    expect(lifecycle.react(givenWorkflow(lifecycle, [pool, running]).when(claimed).state, claimed)).toContainEqual(refill(t2));
  });

  it('an unclaimed pool server that stops is replaced; a claimed one that stops later is not replaced twice', () => {
    expect(lifecycle.react(givenWorkflow(lifecycle, [pool, running]).when(stopped).state, stopped)).toContainEqual(refill(t2));
    const claimed: ServerEvent = { type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'mine', customData: null, ttl: null, matchId: 'm2', at: t1 } };
    expect(lifecycle.react(givenWorkflow(lifecycle, [pool, running, claimed]).when(stopped).state, stopped)).not.toContainEqual(expect.objectContaining({ key: 'pool-refill:s1' }));
  });

  it('a server outside any pool is never refilled', () => {
    expect(lifecycle.react(givenWorkflow(lifecycle, [started, running]).when(stopped).state, stopped)).not.toContainEqual(expect.objectContaining({ kind: 'command' }));
  });
});

describe('Server lifecycle workflow: claim lease', () => {
  const claimed = (leaseSeconds?: number): ServerEvent => ({
    type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'ranked', customData: null, ttl: null, matchId: 'm9', ...(leaseSeconds ? { leaseSeconds } : {}), at: t2 },
  });
  const until = plus(t2, 30_000);
  const expired = { type: 'ServerClaimLeaseExpired' as const, data: { serverId: 's1', at: until } };
  const players = (n: number): ServerEvent => ({ type: 'ServerGameStatusReported', data: { serverId: 's1', players: n, health: null, message: null, at: plus(t2, 5_000) } });
  const refill = { kind: 'command', target: { request: 'RefillPool', projectId: 'p1' }, command: { type: 'RefillPool', projectId: 'p1', region: 'eu-west', computeSize: 'small', replacing: 's1', now: t2 }, key: 'pool-refill:s1' };

  it('a claim with a lease sets its timer; one without sets none', () => {
    givenWorkflow(lifecycle, [pool, running]).when(claimed(30)).then([
      { kind: 'cancel-timer', id: 'server-ttl:s1' }, { kind: 'timer', id: 'server-lease:s1', at: until, then: expired }, refill,
    ]);
    givenWorkflow(lifecycle, [pool, running]).when(claimed()).then([{ kind: 'cancel-timer', id: 'server-ttl:s1' }, refill]);
  });

  it('no player within the lease: the server is stopped with CLAIM_LEASE_EXPIRED', () => {
    givenWorkflow(lifecycle, [pool, running, claimed(30)]).when(expired).then([{
      kind: 'command', target: server, command: { type: 'StopServer', reason: 'CLAIM_LEASE_EXPIRED', now: until }, key: `server-lease:s1:${until}`,
    }]);
    // A report of no players does not meet it.
    givenWorkflow(lifecycle, [pool, running, claimed(30), players(0)]).when(expired).then([expect.objectContaining({ key: `server-lease:s1:${until}` })]);
  });

  it('a game that reported itself resettable is released back to the pool instead, under a new match id', () => {
    const resettable: ServerEvent = { type: 'ServerGameStatusReported', data: { serverId: 's1', players: 0, health: null, message: null, resettable: true, at: plus(t2, 1_000) } };
    givenWorkflow(lifecycle, [pool, running, claimed(30), resettable]).when(expired).then([{
      kind: 'command', target: server, command: { type: 'ReleasePoolServer', matchId: `released:s1:${until}`, reason: 'CLAIM_LEASE_EXPIRED', now: until }, key: `server-lease:s1:${until}`,
    }]);
    // Released, the lease is gone: a stale timer does nothing, and the next claim has a lease of its own.
    const released: ServerEvent = { type: 'ServerPoolReleased', data: { serverId: 's1', name: 'pool-eu-west', matchId: `released:s1:${until}`, reason: 'CLAIM_LEASE_EXPIRED', at: until } };
    givenWorkflow(lifecycle, [pool, running, claimed(30), resettable, released]).when(expired).thenNothing();
    const again: ServerEvent = { type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'next', customData: null, ttl: null, matchId: 'm10', leaseSeconds: 30, at: plus(until, 1_000) } };
    const next = plus(until, 31_000);
    expect(lifecycle.react(givenWorkflow(lifecycle, [pool, running, claimed(30), resettable, released]).when(again).state, again))
      .toContainEqual({ kind: 'timer', id: 'server-lease:s1', at: next, then: { type: 'ServerClaimLeaseExpired', data: { serverId: 's1', at: next } } });
  });

  it('a player reported in time meets it, and a stopped server has none: the timer then does nothing', () => {
    givenWorkflow(lifecycle, [pool, running, claimed(30), players(2)]).when(expired).thenNothing();
    givenWorkflow(lifecycle, [pool, running, claimed(30), { ...stopped, data: { ...stopped.data, at: plus(t2, 1_000) } }]).when(expired).thenNothing();
  });
});
