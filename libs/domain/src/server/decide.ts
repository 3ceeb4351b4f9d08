import { conflict, notFound } from '../kit';
import { ServerCommand } from './commands';
import { MAX_AUTO_RESTARTS, ServerEvent } from './events';
import { applyPlan } from './plan-policy';
import { ServerState } from './state';

export function decide(command: ServerCommand, state: ServerState): ServerEvent[] {
  if (command.type === 'StartServer') {
    if (state.status !== 'none') throw conflict('server already exists');
    const { type: _t, now, admission, ...launch } = command;
    const ttl = admission ? applyPlan({ ...admission, computeSize: launch.computeSize, ttl: launch.ttl }) : launch.ttl;
    return [{ type: 'ServerStarted', data: { ...launch, ttl, at: now } }];
  }
  if (state.status === 'none') throw notFound('server');
  const serverId = state.serverId;
  switch (command.type) {
    case 'MarkRunning':
      // A late "bound" report after a stop, or a repeated one, changes nothing; an SDK-ready game waits for its own report.
      if (state.status !== 'launching' || state.readiness === 'sdk') return [];
      return [{ type: 'ServerRunning', data: { serverId, at: command.now } }];
    case 'StopServer':
      // DELETE is idempotent: stopping a stopped server records nothing and answers it as it stopped.
      if (state.status === 'stopped') return [];
      return [{ type: 'ServerStopped', data: { serverId, reason: command.reason, exitCode: null, at: command.now } }];
    case 'RecordExit': {
      // The exit that follows our own stop is expected: the server is already stopped.
      if (state.status === 'stopped') return [];
      const crashed = command.reason === 'PROCESS_EXITED' && state.autoRestart;
      if (crashed && state.restarts < MAX_AUTO_RESTARTS) {
        return [{ type: 'ServerCrashed', data: { serverId, exitCode: command.exitCode, attempt: state.restarts + 1, at: command.now } }];
      }
      return [{ type: 'ServerStopped', data: { serverId, reason: command.reason, exitCode: command.exitCode, at: command.now } }];
    }
    case 'RestartServer':
      if (command.crashAttempt !== undefined) {
        // A crash restart moved to another machine: only for the crash it answers (the crash-loop count goes on).
        if (state.status !== 'launching' || state.restarts !== command.crashAttempt) throw conflict('the server moved on since its crash');
      } else if (state.isPoolServer) throw conflict('pool servers cannot be restarted; stop it and start a new one');
      return [{ type: 'ServerRestarted', data: {
        serverId, ...command.overrides, networkPorts: command.networkPorts, buildId: command.buildId, version: command.version,
        ...(command.tokenHash === undefined ? {} : { tokenHash: command.tokenHash }),
        ...(command.crashAttempt === undefined ? {} : { restarts: command.crashAttempt }), at: command.now,
      } }];
    case 'ReportReady':
      if (state.status === 'stopped') throw conflict('server is stopped');
      // Ready again while running (a repeated call) changes nothing.
      if (state.status === 'running') return [];
      return [{ type: 'ServerRunning', data: { serverId, at: command.now } }];
    case 'ReportState':
      if (command.state === 'running') return decide({ type: 'ReportReady', now: command.now }, state);
      // As a stop: reported again (or for a server already stopped), nothing is recorded and it is no error.
      if (command.state === 'stopped') return decide({ type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: command.now }, state);
      return [];
    case 'ReportGameStatus': {
      if (state.status === 'stopped') throw conflict('server is stopped');
      const last = state.gameStatus;
      const players = command.players ?? last?.players ?? null;
      const health = command.health ?? last?.health ?? null;
      const message = command.message === undefined ? (last?.message ?? null) : command.message;
      const resettable = command.resettable ?? last?.resettable ?? false;
      // The same report again appends nothing: a game may report on every tick.
      if (last && last.players === players && last.health === health && last.message === message && (last.resettable ?? false) === resettable) return [];
      return [{ type: 'ServerGameStatusReported', data: { serverId, players, health, message, ...(resettable ? { resettable } : {}), at: command.now } }];
    }
    case 'UpdateCustomData':
      if (state.status === 'stopped') throw conflict('server is stopped; custom_data can only change while it is launching or running');
      return [{ type: 'ServerCustomDataUpdated', data: { serverId, customData: command.customData, at: command.now } }];
    case 'ClaimPoolServer':
      if (!state.isPoolServer) throw conflict('not a pool server');
      if (state.poolClaimedAt !== null) throw conflict('pool server already claimed');
      if (state.status !== 'running') throw conflict(`pool server is ${state.status}, not ready`);
      return [{ type: 'ServerPoolClaimed', data: {
        serverId, name: command.name, customData: command.customData,
        ttl: command.admission ? applyPlan({ ...command.admission, computeSize: state.computeSize, ttl: command.ttl }) : command.ttl, matchId: command.matchId, ...(command.startKey ? { startKey: command.startKey } : {}),
        ...(command.leaseSeconds ? { leaseSeconds: command.leaseSeconds } : {}), at: command.now,
      } }];
    case 'ReleasePoolServer':
      if (state.status !== 'running' || !state.isPoolServer || state.poolClaimedAt === null) throw conflict('not a claimed pool server that is running');
      if (!state.gameStatus?.resettable) throw conflict('the game does not reset itself (it never reported resettable)');
      return [{ type: 'ServerPoolReleased', data: { serverId, name: `pool-${state.region}`, matchId: command.matchId, reason: command.reason, at: command.now } }];
  }
}
