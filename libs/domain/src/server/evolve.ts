import { ServerEvent } from './events';
import { ServerState } from './state';

export function evolve(state: ServerState, event: ServerEvent): ServerState {
  if (event.type === 'ServerStarted') {
    const { at, ...launch } = event.data;
    return { status: 'launching', ...launch, startedAt: null, restarts: 0, poolClaimedAt: null, gameStatus: null, createdAt: at, updatedAt: at };
  }
  if (state.status === 'none') return state;
  const at = event.data.at;
  switch (event.type) {
    case 'ServerRunning':
      if (state.status !== 'launching') return state;
      return { ...state, status: 'running', startedAt: state.startedAt ?? at, updatedAt: at };
    case 'ServerStopped':
      if (state.status === 'stopped') return state;
      return { ...state, status: 'stopped', stoppedAt: at, stopReason: event.data.reason, exitCode: event.data.exitCode, updatedAt: at };
    case 'ServerCrashed':
      if (state.status === 'stopped') return state;
      return { ...state, status: 'launching', restarts: event.data.attempt, gameStatus: null, updatedAt: at };
    case 'ServerRestarted': {
      const { serverId: _s, at: _a, ...changes } = event.data;
      const { stoppedAt: _st, stopReason: _r, exitCode: _e, ...rest } = state as Extract<ServerState, { status: 'stopped' }>;
      return { ...rest, ...changes, status: 'launching', startedAt: null, restarts: event.data.restarts ?? 0, gameStatus: null, updatedAt: at };
    }
    case 'ServerCustomDataUpdated':
      return { ...state, customData: event.data.customData, updatedAt: at };
    case 'ServerPoolClaimed': {
      const { name, customData, ttl, matchId } = event.data;
      return { ...state, name, customData, ttl, matchId, poolClaimedAt: at, updatedAt: at };
    }
    case 'ServerGameStatusReported': {
      const { players, health, message, resettable } = event.data;
      return { ...state, gameStatus: { players, health, message, reportedAt: at, ...(resettable ? { resettable } : {}) }, updatedAt: at };
    }
    case 'ServerPoolReleased': {
      const { name, matchId } = event.data;
      return { ...state, name, matchId, customData: null, ttl: null, poolClaimedAt: null, updatedAt: at };
    }
  }
}
