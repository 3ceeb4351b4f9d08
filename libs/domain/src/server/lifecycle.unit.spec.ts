import { given } from '../kit/testing';
import { MAX_AUTO_RESTARTS, serverDecider, ServerEvent, ServerLaunch, ttlDeadline } from '.';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:00:01.000Z';
const t2 = '2026-11-21T10:05:00.000Z';
const t3 = '2026-11-21T10:06:00.000Z';
const port = (external: number) => ({ name: 'game', internal_port: 7777, external_port: external, protocol: 'udp' as const, host: '127.0.0.1', tls_enabled: false });
const launch: ServerLaunch = {
  serverId: 's1', projectId: 'p', name: 'match', region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 1, buildId: 'b1',
  networkPorts: [port(7001)], startupArgs: null, serviceType: 'match_based', autoRestart: true, customData: { a: 1 }, ttl: 600,
  matchId: 'm1', environmentVariables: {}, isPoolServer: false,
};
const started: ServerEvent = { type: 'ServerStarted', data: { ...launch, at: t0 } };
const running: ServerEvent = { type: 'ServerRunning', data: { serverId: 's1', at: t1 } };
const stopped: ServerEvent = { type: 'ServerStopped', data: { serverId: 's1', reason: 'SHUTDOWN_SIGNAL', exitCode: null, at: t2 } };
const crash = (attempt: number): ServerEvent => ({ type: 'ServerCrashed', data: { serverId: 's1', exitCode: 1, attempt, at: t2 } });

describe('Server restart', () => {
  it('restarts on a new machine with new ports and overrides; started_at is set again when it runs', () => {
    const s = given(serverDecider, [started, running])
      .when({ type: 'RestartServer', overrides: { name: 'renamed', ttl: 60 }, networkPorts: [port(7002)], buildId: 'b2', version: 2, now: t2 })
      .then([{ type: 'ServerRestarted', data: { serverId: 's1', name: 'renamed', ttl: 60, networkPorts: [port(7002)], buildId: 'b2', version: 2, at: t2 } }]);
    expect(s).toMatchObject({ status: 'launching', startedAt: null, name: 'renamed', ttl: 60, version: 2, networkPorts: [port(7002)], customData: { a: 1 } });
  });

  it('brings a stopped server back with the same instance id', () => {
    const s = given(serverDecider, [started, running, stopped])
      .when({ type: 'RestartServer', overrides: {}, networkPorts: [port(7003)], buildId: 'b1', version: 1, now: t2 })
      .then([{ type: 'ServerRestarted', data: { serverId: 's1', networkPorts: [port(7003)], buildId: 'b1', version: 1, at: t2 } }]);
    expect(s.status).toBe('launching');
    expect(s).not.toHaveProperty('stoppedAt');
  });

  it('refuses to restart a pool server (409)', () => {
    given(serverDecider, [{ type: 'ServerStarted', data: { ...launch, isPoolServer: true, at: t0 } }])
      .when({ type: 'RestartServer', overrides: {}, networkPorts: [], buildId: null, version: null, now: t2 }).thenError('conflict', /pool/);
  });
});

describe('A crash restart on another replica (ADR-0021)', () => {
  it('starts a new machine for the crash it answers, and the crash-loop count goes on', () => {
    const s = given(serverDecider, [started, running, crash(3)])
      .when({ type: 'RestartServer', overrides: {}, networkPorts: [port(7004)], buildId: 'b1', version: 1, tokenHash: 'h2', now: t2, crashAttempt: 3 })
      .then([{ type: 'ServerRestarted', data: { serverId: 's1', networkPorts: [port(7004)], buildId: 'b1', version: 1, tokenHash: 'h2', restarts: 3, at: t2 } }]);
    expect(s).toMatchObject({ status: 'launching', restarts: 3, networkPorts: [port(7004)] });
  });

  it('refuses when the server moved on since that crash (another crash, or running again)', () => {
    given(serverDecider, [started, running, crash(1), crash(2)])
      .when({ type: 'RestartServer', overrides: {}, networkPorts: [], buildId: 'b1', version: 1, now: t2, crashAttempt: 1 }).thenError('conflict', /moved on/);
    given(serverDecider, [started, running, crash(1), running])
      .when({ type: 'RestartServer', overrides: {}, networkPorts: [], buildId: 'b1', version: 1, now: t2, crashAttempt: 1 }).thenError('conflict', /moved on/);
  });

  it('restarts a crashed pool server too (only a manual restart of one is refused)', () => {
    given(serverDecider, [{ type: 'ServerStarted', data: { ...launch, isPoolServer: true, at: t0 } }, running, crash(1)])
      .when({ type: 'RestartServer', overrides: {}, networkPorts: [], buildId: 'b1', version: 1, now: t2, crashAttempt: 1 })
      .then([{ type: 'ServerRestarted', data: { serverId: 's1', networkPorts: [], buildId: 'b1', version: 1, restarts: 1, at: t2 } }]);
  });
});

describe('Server custom_data', () => {
  it('replaces custom_data while launching or running', () => {
    given(serverDecider, [started, running]).when({ type: 'UpdateCustomData', customData: { b: 2 }, now: t2 })
      .then([{ type: 'ServerCustomDataUpdated', data: { serverId: 's1', customData: { b: 2 }, at: t2 } }]);
  });

  it('refuses on a stopped server (409)', () => {
    given(serverDecider, [started, running, stopped]).when({ type: 'UpdateCustomData', customData: {}, now: t2 }).thenError('conflict');
  });
});

describe('Server auto_restart', () => {
  it('records a crash and restarts the game on the same machine, keeping started_at', () => {
    const s = given(serverDecider, [started, running]).when({ type: 'RecordExit', reason: 'PROCESS_EXITED', exitCode: 1, now: t2 }).then([crash(1)]);
    expect(s).toMatchObject({ status: 'launching', restarts: 1, startedAt: t1, networkPorts: [port(7001)] });
  });

  it('stops on the crash after the 10th restart', () => {
    const crashes = Array.from({ length: MAX_AUTO_RESTARTS }, (_, i) => crash(i + 1));
    given(serverDecider, [started, running, ...crashes]).when({ type: 'RecordExit', reason: 'PROCESS_EXITED', exitCode: 1, now: t2 })
      .then([{ type: 'ServerStopped', data: { serverId: 's1', reason: 'PROCESS_EXITED', exitCode: 1, at: t2 } }]);
    given(serverDecider, [started, running, ...crashes.slice(0, 9)]).when({ type: 'RecordExit', reason: 'PROCESS_EXITED', exitCode: 1, now: t2 }).then([crash(10)]);
  });

  it('does not restart after a startup timeout or without auto_restart', () => {
    given(serverDecider, [started]).when({ type: 'RecordExit', reason: 'STARTUP_FAILURE_TIMEOUT', exitCode: null, now: t2 })
      .then([{ type: 'ServerStopped', data: { serverId: 's1', reason: 'STARTUP_FAILURE_TIMEOUT', exitCode: null, at: t2 } }]);
    given(serverDecider, [{ type: 'ServerStarted', data: { ...launch, autoRestart: false, at: t0 } }, running])
      .when({ type: 'RecordExit', reason: 'PROCESS_EXITED', exitCode: 1, now: t2 })
      .then([{ type: 'ServerStopped', data: { serverId: 's1', reason: 'PROCESS_EXITED', exitCode: 1, at: t2 } }]);
  });
});

describe('Pool claims', () => {
  const pooled: ServerEvent = { type: 'ServerStarted', data: { ...launch, name: 'pool', customData: null, ttl: null, isPoolServer: true, at: t0 } };
  const claim = { type: 'ClaimPoolServer' as const, name: 'ranked #1', customData: { map: 'dust' }, ttl: 900, matchId: 'm9', now: t2 };

  it('hands a ready pool server to the caller with its name, data, ttl and match id', () => {
    const s = given(serverDecider, [pooled, running]).when(claim)
      .then([{ type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'ranked #1', customData: { map: 'dust' }, ttl: 900, matchId: 'm9', at: t2 } }]);
    expect(s).toMatchObject({ status: 'running', poolClaimedAt: t2, name: 'ranked #1', matchId: 'm9' });
  });

  it("records the claiming start's command id, so a retry of that start can find its claim", () => {
    given(serverDecider, [pooled, running]).when({ ...claim, startKey: 'launch:l1:1' })
      .then([{ type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'ranked #1', customData: { map: 'dust' }, ttl: 900, matchId: 'm9', startKey: 'launch:l1:1', at: t2 } }]);
  });

  it("gives a claim the ttl the project's plan allows, and refuses one the plan does not admit (the server stays unclaimed)", () => {
    given(serverDecider, [pooled, running]).when({ ...claim, admission: { plan: 'free', activeServers: 0 } })
      .then([{ type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'ranked #1', customData: { map: 'dust' }, ttl: 3600, matchId: 'm9', at: t2 } }]);
    const s = given(serverDecider, [pooled, running]);
    s.when({ ...claim, admission: { plan: 'free', activeServers: 1 } }).thenError('forbidden', /1 active server/);
    expect(s.state).toMatchObject({ poolClaimedAt: null });
  });

  it('never hands out a pool server twice, nor one that is not ready', () => {
    const claimed: ServerEvent = { type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'x', customData: null, ttl: null, matchId: 'm', at: t2 } };
    given(serverDecider, [pooled, running, claimed]).when(claim).thenError('conflict', /already claimed/);
    given(serverDecider, [pooled]).when(claim).thenError('conflict', /not ready/);
    given(serverDecider, [started, running]).when(claim).thenError('conflict', /not a pool server/);
  });

  describe('released back to the pool (a lease on a resettable game)', () => {
    const claimed: ServerEvent = { type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'ranked #1', customData: { map: 'dust' }, ttl: 900, matchId: 'm9', startKey: 'k1', at: t2 } };
    const report = (resettable?: boolean): ServerEvent => ({ type: 'ServerGameStatusReported', data: { serverId: 's1', players: 0, health: null, message: null, ...(resettable ? { resettable } : {}), at: t2 } });
    const release = { type: 'ReleasePoolServer' as const, matchId: 'm10', reason: 'CLAIM_LEASE_EXPIRED' as const, now: t3 };

    it('unclaims it: the pool name again, no custom data or ttl, a new match id; it can be claimed again', () => {
      const s = given(serverDecider, [pooled, running, claimed, report(true)]).when(release)
        .then([{ type: 'ServerPoolReleased', data: { serverId: 's1', name: 'pool-eu-west', matchId: 'm10', reason: 'CLAIM_LEASE_EXPIRED', at: t3 } }]);
      expect(s).toMatchObject({ status: 'running', poolClaimedAt: null, name: 'pool-eu-west', customData: null, ttl: null, matchId: 'm10' });
      given(serverDecider, [pooled, running, claimed, report(true), { type: 'ServerPoolReleased', data: { serverId: 's1', name: 'pool-eu-west', matchId: 'm10', reason: 'CLAIM_LEASE_EXPIRED', at: t3 } }])
        .when({ ...claim, now: t3 }).then([{ type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'ranked #1', customData: { map: 'dust' }, ttl: 900, matchId: 'm9', at: t3 } }]);
    });

    it('refuses a game that never said it resets itself, an unclaimed or stopped server, and a server outside the pool', () => {
      given(serverDecider, [pooled, running, claimed, report()]).when(release).thenError('conflict', /does not reset itself/);
      given(serverDecider, [pooled, running, claimed]).when(release).thenError('conflict', /does not reset itself/);
      given(serverDecider, [pooled, running, report(true)]).when(release).thenError('conflict', /not a claimed pool server/);
      given(serverDecider, [started, running]).when(release).thenError('conflict', /not a claimed pool server/);
      const stoppedNow: ServerEvent = { type: 'ServerStopped', data: { serverId: 's1', reason: 'SHUTDOWN_SIGNAL', exitCode: null, at: t3 } };
      given(serverDecider, [pooled, running, claimed, report(true), stoppedNow]).when(release).thenError('conflict', /not a claimed pool server/);
    });

    it('a game says it resets itself once; a later report without the flag keeps it, one with false drops it', () => {
      const s = given(serverDecider, [pooled, running, report(true)]);
      s.when({ type: 'ReportGameStatus', players: 2, now: t2 }).then([{ type: 'ServerGameStatusReported', data: { serverId: 's1', players: 2, health: null, message: null, resettable: true, at: t2 } }]);
      given(serverDecider, [pooled, running, report(true)]).when({ type: 'ReportGameStatus', resettable: false, now: t2 })
        .then([{ type: 'ServerGameStatusReported', data: { serverId: 's1', players: 0, health: null, message: null, at: t2 } }]);
    });
  });
});

describe('TTL deadline', () => {
  it('counts from started_at, or from the claim for pool servers', () => {
    expect(given(serverDecider, [started]).state).toBeDefined();
    expect(ttlDeadline(given(serverDecider, [started]).state)).toBeNull();
    expect(ttlDeadline(given(serverDecider, [started, running]).state)?.toISOString()).toBe('2026-11-21T10:10:01.000Z');
    const pooled: ServerEvent = { type: 'ServerStarted', data: { ...launch, isPoolServer: true, ttl: null, at: t0 } };
    const claimed: ServerEvent = { type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'x', customData: null, ttl: 60, matchId: 'm', at: t2 } };
    expect(ttlDeadline(given(serverDecider, [pooled, running]).state)).toBeNull();
    expect(ttlDeadline(given(serverDecider, [pooled, running, claimed]).state)?.toISOString()).toBe('2026-11-21T10:06:00.000Z');
    expect(ttlDeadline(given(serverDecider, [started, running, stopped]).state)).toBeNull();
  });
});
