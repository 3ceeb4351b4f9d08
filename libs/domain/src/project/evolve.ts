import { ProjectEvent } from './events';
import { ProjectState } from './state';

export function evolve(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case 'ProjectCreated': {
      const { at, ...d } = event.data;
      return { status: 'active', ...d, rateLimits: null, createdAt: at, updatedAt: at };
    }
    case 'ProjectSettingsUpdated':
      return state.status === 'active' ? { ...state, settings: event.data.settings, updatedAt: event.data.at } : state;
    case 'ProjectKeysRotated':
      return state.status === 'active'
        ? { ...state, serverKeyHash: event.data.serverKeyHash, clientKeyHash: event.data.clientKeyHash, updatedAt: event.data.at }
        : state;
    case 'ProjectPlanChanged':
      return state.status === 'active'
        ? { ...state, plan: event.data.plan, rateLimits: event.data.rateLimits, updatedAt: event.data.at }
        : state;
  }
}
