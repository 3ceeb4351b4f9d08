import { ServerEvent } from './events';
import { ServerState } from './state';

export function evolve(state: ServerState, event: ServerEvent): ServerState {
  switch (event.type) {
    case 'ServerStarted': {
      const { at, ...launch } = event.data;
      return { status: 'launching', ...launch, startedAt: null, createdAt: at, updatedAt: at };
    }
    case 'ServerRunning':
      if (state.status !== 'launching') return state;
      return { ...state, status: 'running', startedAt: event.data.at, updatedAt: event.data.at };
    case 'ServerStopped':
      if (state.status === 'none' || state.status === 'stopped') return state;
      return { ...state, status: 'stopped', stoppedAt: event.data.at, stopReason: event.data.reason, exitCode: event.data.exitCode, updatedAt: event.data.at };
  }
}
