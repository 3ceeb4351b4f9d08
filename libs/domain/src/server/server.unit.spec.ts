import { given } from '../kit/testing';
import { applyPlan, serverDecider, ServerEvent, ServerLaunch } from '.';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:00:01.000Z';
const t2 = '2026-11-21T10:30:00.000Z';
const launch: ServerLaunch = {
  serverId: 's1', projectId: 'p', name: 'eu match', region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 3,
  buildId: 'b3', networkPorts: [{ name: 'game', internal_port: 7777, external_port: 7001, protocol: 'udp', host: '127.0.0.1', tls_enabled: false }],
  startupArgs: '-mode ranked', serviceType: 'match_based', autoRestart: false, customData: { map: 'dust' }, ttl: 600, matchId: 'm1',
  environmentVariables: {}, isPoolServer: false,
};
const started: ServerEvent = { type: 'ServerStarted', data: { ...launch, at: t0 } };
const running: ServerEvent = { type: 'ServerRunning', data: { serverId: 's1', at: t1 } };
const stopped: ServerEvent = { type: 'ServerStopped', data: { serverId: 's1', reason: 'SHUTDOWN_SIGNAL', exitCode: null, at: t2 } };

describe('Server', () => {
  it('starts launching with its ports already allocated', () => {
    const s = given(serverDecider).when({ type: 'StartServer', now: t0, ...launch }).then([started]);
    expect(s).toMatchObject({ status: 'launching', startedAt: null, networkPorts: launch.networkPorts });
  });

  it('becomes running when the game opens its ports; started_at is set then', () => {
    const s = given(serverDecider, [started]).when({ type: 'MarkRunning', now: t1 }).then([running]);
    expect(s).toMatchObject({ status: 'running', startedAt: t1 });
  });

  it('ignores a repeated or late running report', () => {
    given(serverDecider, [started, running]).when({ type: 'MarkRunning', now: t2 }).thenNothing();
    given(serverDecider, [started, stopped]).when({ type: 'MarkRunning', now: t2 }).thenNothing();
  });

  it('stops manually from launching or running, with the reason', () => {
    given(serverDecider, [started, running]).when({ type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: t2 }).then([stopped]);
    const s = given(serverDecider, [started]).when({ type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: t2 })
      .then([{ type: 'ServerStopped', data: { serverId: 's1', reason: 'SHUTDOWN_SIGNAL', exitCode: null, at: t2 } }]);
    expect(s).toMatchObject({ status: 'stopped', stoppedAt: t2, startedAt: null });
  });

  it('stopping a stopped server again records nothing (DELETE is idempotent); an unknown one is 404', () => {
    given(serverDecider, [started, stopped]).when({ type: 'StopServer', reason: 'TTL_EXPIRED', now: t2 }).thenNothing();
    given(serverDecider).when({ type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: t2 }).thenError('not_found');
  });

  it('stops when the game exits on its own, keeping the exit code', () => {
    given(serverDecider, [started, running]).when({ type: 'RecordExit', reason: 'PROCESS_EXITED', exitCode: 3, now: t2 })
      .then([{ type: 'ServerStopped', data: { serverId: 's1', reason: 'PROCESS_EXITED', exitCode: 3, at: t2 } }]);
  });

  it('treats the exit after a manual stop as already recorded', () => {
    given(serverDecider, [started, running, stopped]).when({ type: 'RecordExit', reason: 'PROCESS_EXITED', exitCode: 0, now: t2 }).thenNothing();
  });

  it("is admitted by the project's plan: the free plan forces its ttl, refuses a second active server and a size it lacks", () => {
    given(serverDecider).when({ type: 'StartServer', now: t0, ...launch, admission: { plan: 'free', activeServers: 0 } })
      .then([{ type: 'ServerStarted', data: { ...launch, ttl: 3600, at: t0 } }]);
    given(serverDecider).when({ type: 'StartServer', now: t0, ...launch, admission: { plan: 'free', activeServers: 1 } }).thenError('forbidden', /1 active server/);
    given(serverDecider).when({ type: 'StartServer', now: t0, ...launch, computeSize: 'large', admission: { plan: 'free', activeServers: 0 } })
      .thenError('forbidden', /not available on the free plan/);
    given(serverDecider).when({ type: 'StartServer', now: t0, ...launch, ttl: 90_000, admission: { plan: 'pro', activeServers: 40 } }).thenError('invalid', /at most 86400/);
    // A pool refill is no caller's start: no admission, the launch as it is.
    given(serverDecider).when({ type: 'StartServer', now: t0, ...launch }).then([started]);
  });

  it('cannot be started twice', () => {
    given(serverDecider, [started]).when({ type: 'StartServer', now: t0, ...launch }).thenError('conflict');
  });
});

describe('Plan policy', () => {
  it('forces ttl 3600 on free and allows one active server of size small', () => {
    expect(applyPlan({ plan: 'free', computeSize: 'small', ttl: null, activeServers: 0 })).toBe(3600);
    expect(applyPlan({ plan: 'free', computeSize: 'small', ttl: 60, activeServers: 0 })).toBe(3600);
    expect(() => applyPlan({ plan: 'free', computeSize: 'small', ttl: null, activeServers: 1 })).toThrow(/1 active server/);
    expect(() => applyPlan({ plan: 'free', computeSize: 'medium', ttl: null, activeServers: 0 })).toThrow(/not available on the free plan/);
  });

  it('lets pro use every size, any count, ttl up to 86400', () => {
    expect(applyPlan({ plan: 'pro', computeSize: 'dedicated-xlarge', ttl: 86400, activeServers: 500 })).toBe(86400);
    expect(applyPlan({ plan: 'pro', computeSize: 'micro', ttl: null, activeServers: 0 })).toBeNull();
    expect(() => applyPlan({ plan: 'pro', computeSize: 'small', ttl: 86401, activeServers: 0 })).toThrow(/at most 86400/);
  });
});
