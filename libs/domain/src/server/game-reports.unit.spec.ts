// The game's own reports through its server token (ADR-0016): SDK readiness, player count and health,
// and the token hash each machine carries.
import { given } from '../kit/testing';
import { serverDecider, ServerEvent, ServerLaunch } from '.';

const t0 = '2026-11-26T10:00:00.000Z';
const t1 = '2026-11-26T10:00:01.000Z';
const t2 = '2026-11-26T10:00:02.000Z';
const launch: ServerLaunch = {
  serverId: 's1', projectId: 'p', name: 'match', region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 1, buildId: 'b1',
  networkPorts: [], startupArgs: null, serviceType: 'match_based', autoRestart: true, customData: null, ttl: null,
  matchId: 'm1', environmentVariables: {}, isPoolServer: false, tokenHash: 'h1',
};
const started = (extra: Partial<ServerLaunch> = {}): ServerEvent => ({ type: 'ServerStarted', data: { ...launch, ...extra, at: t0 } });
const running: ServerEvent = { type: 'ServerRunning', data: { serverId: 's1', at: t1 } };
const stopped: ServerEvent = { type: 'ServerStopped', data: { serverId: 's1', reason: 'SHUTDOWN_SIGNAL', exitCode: null, at: t2 } };
const status = (players: number | null, health: 'healthy' | 'degraded' | null, message: string | null = null): ServerEvent =>
  ({ type: 'ServerGameStatusReported', data: { serverId: 's1', players, health, message, at: t2 } });

describe('Server readiness: sdk', () => {
  it('stays launching when its ports are bound', () => {
    given(serverDecider, [started({ readiness: 'sdk' })]).when({ type: 'MarkRunning', now: t1 }).thenNothing();
  });

  it('runs when the game reports ready', () => {
    const s = given(serverDecider, [started({ readiness: 'sdk' })]).when({ type: 'ReportReady', now: t1 }).then([running]);
    expect(s).toMatchObject({ status: 'running', startedAt: t1 });
  });

  it('a port-detected server still runs on bound ports, and a ready report before that also runs it', () => {
    given(serverDecider, [started()]).when({ type: 'MarkRunning', now: t1 }).then([running]);
    given(serverDecider, [started()]).when({ type: 'ReportReady', now: t1 }).then([running]);
  });

  it('a repeated ready changes nothing; ready on a stopped server is a 409', () => {
    given(serverDecider, [started({ readiness: 'sdk' }), running]).when({ type: 'ReportReady', now: t2 }).thenNothing();
    given(serverDecider, [started({ readiness: 'sdk' }), stopped]).when({ type: 'ReportReady', now: t2 }).thenError('conflict', /stopped/);
  });

  it('after a crash the restarted game must report ready again', () => {
    const crashed: ServerEvent = { type: 'ServerCrashed', data: { serverId: 's1', exitCode: 1, attempt: 1, at: t2 } };
    given(serverDecider, [started({ readiness: 'sdk' }), running, crashed]).when({ type: 'MarkRunning', now: t2 }).thenNothing();
    given(serverDecider, [started({ readiness: 'sdk' }), running, crashed]).when({ type: 'ReportReady', now: t2 })
      .then([{ type: 'ServerRunning', data: { serverId: 's1', at: t2 } }]);
  });
});

describe('Server game status', () => {
  it('records players and health', () => {
    const s = given(serverDecider, [started(), running]).when({ type: 'ReportGameStatus', players: 3, health: 'healthy', now: t2 })
      .then([status(3, 'healthy')]);
    expect(s).toMatchObject({ gameStatus: { players: 3, health: 'healthy', message: null, reportedAt: t2 } });
  });

  it('keeps the fields a report leaves out', () => {
    given(serverDecider, [started(), running, status(3, 'healthy')]).when({ type: 'ReportGameStatus', health: 'degraded', message: 'lag', now: t2 })
      .then([status(3, 'degraded', 'lag')]);
  });

  it('the same report again appends nothing', () => {
    given(serverDecider, [started(), running, status(3, 'healthy')]).when({ type: 'ReportGameStatus', players: 3, now: t2 }).thenNothing();
  });

  it('is refused on a stopped server (409)', () => {
    given(serverDecider, [started(), running, stopped]).when({ type: 'ReportGameStatus', players: 1, now: t2 }).thenError('conflict');
  });

  it('is cleared when the game crashes or the server restarts: the new machine has not reported', () => {
    const crashed: ServerEvent = { type: 'ServerCrashed', data: { serverId: 's1', exitCode: 1, attempt: 1, at: t2 } };
    expect(given(serverDecider, [started(), running, status(2, 'healthy'), crashed]).state).toMatchObject({ gameStatus: null });
  });
});

describe('Server token hash', () => {
  it('is carried by the start and renewed by a restart', () => {
    expect(given(serverDecider, [started()]).state).toMatchObject({ tokenHash: 'h1' });
    const s = given(serverDecider, [started(), running, status(1, null)])
      .when({ type: 'RestartServer', overrides: {}, networkPorts: [], buildId: 'b1', version: 1, tokenHash: 'h2', now: t2 })
      .then([{ type: 'ServerRestarted', data: { serverId: 's1', networkPorts: [], buildId: 'b1', version: 1, tokenHash: 'h2', at: t2 } }]);
    expect(s).toMatchObject({ tokenHash: 'h2', gameStatus: null });
  });

  it('is kept through a pool claim', () => {
    const s = given(serverDecider, [started({ isPoolServer: true }), running])
      .when({ type: 'ClaimPoolServer', name: 'n', customData: { k: 1 }, ttl: null, matchId: 'm2', now: t2 })
      .then([{ type: 'ServerPoolClaimed', data: { serverId: 's1', name: 'n', customData: { k: 1 }, ttl: null, matchId: 'm2', at: t2 } }]);
    expect(s).toMatchObject({ tokenHash: 'h1', matchId: 'm2' });
  });
});
