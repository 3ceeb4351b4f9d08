// A server reporting its own state with the project key (the v2 API's PUT …/update with X-Server-Status).
import { given } from '../kit/testing';
import { serverDecider, ServerEvent, ServerLaunch } from '.';

const t0 = '2026-11-28T10:00:00.000Z';
const t1 = '2026-11-28T10:00:01.000Z';
const t2 = '2026-11-28T10:00:02.000Z';
const launch: ServerLaunch = {
  serverId: 's1', projectId: 'p', name: 'match', region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 1, buildId: 'b1',
  networkPorts: [], startupArgs: null, serviceType: 'match_based', autoRestart: false, customData: null, ttl: null,
  matchId: 'm1', environmentVariables: {}, isPoolServer: false, tokenHash: 'h1',
};
const started = (extra: Partial<ServerLaunch> = {}): ServerEvent => ({ type: 'ServerStarted', data: { ...launch, ...extra, at: t0 } });
const running: ServerEvent = { type: 'ServerRunning', data: { serverId: 's1', at: t1 } };
const stoppedAt = (at: string): ServerEvent => ({ type: 'ServerStopped', data: { serverId: 's1', reason: 'SHUTDOWN_SIGNAL', exitCode: null, at } });

describe('Server reports its state: running', () => {
  it('runs a launching server, as the game API ready report does (readiness sdk too)', () => {
    const s = given(serverDecider, [started({ readiness: 'sdk' })]).when({ type: 'ReportState', state: 'running', now: t1 }).then([running]);
    expect(s).toMatchObject({ status: 'running', startedAt: t1 });
    given(serverDecider, [started()]).when({ type: 'ReportState', state: 'running', now: t1 }).then([running]);
  });

  it('changes nothing on a running server', () => {
    given(serverDecider, [started(), running]).when({ type: 'ReportState', state: 'running', now: t2 }).thenNothing();
  });

  it('is a conflict on a stopped server (it cannot run again without a restart)', () => {
    given(serverDecider, [started(), running, stoppedAt(t2)]).when({ type: 'ReportState', state: 'running', now: t2 }).thenError('conflict', /stopped/);
  });
});

describe('Server reports its state: stopped', () => {
  it('stops a launching or running server as a manual stop does', () => {
    given(serverDecider, [started()]).when({ type: 'ReportState', state: 'stopped', now: t1 }).then([stoppedAt(t1)]);
    const s = given(serverDecider, [started(), running]).when({ type: 'ReportState', state: 'stopped', now: t2 }).then([stoppedAt(t2)]);
    expect(s).toMatchObject({ status: 'stopped' });
  });

  it('again, or on a server already stopped, changes nothing and is no error', () => {
    given(serverDecider, [started(), running, stoppedAt(t2)]).when({ type: 'ReportState', state: 'stopped', now: t2 }).thenNothing();
  });
});

describe('Server reports its state: launching', () => {
  it('changes nothing, whatever the state', () => {
    given(serverDecider, [started()]).when({ type: 'ReportState', state: 'launching', now: t1 }).thenNothing();
    given(serverDecider, [started(), running]).when({ type: 'ReportState', state: 'launching', now: t2 }).thenNothing();
    given(serverDecider, [started(), running, stoppedAt(t2)]).when({ type: 'ReportState', state: 'launching', now: t2 }).thenNothing();
  });
});
