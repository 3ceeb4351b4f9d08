import { Decider } from '../kit';
import { ServerCommand } from './commands';
import { decide } from './decide';
import { ServerEvent } from './events';
import { evolve } from './evolve';
import { ServerState } from './state';

export * from './commands';
export * from './events';
export * from './plan-policy';
export * from './pool-plan';
export * from './pool-demand';
export * from './reconcile';
export * from './state';
export * from './resource';
export * from './ttl';

export const serverStream = (serverId: string) => `server-${serverId}`;

export const serverDecider: Decider<ServerCommand, ServerEvent, ServerState> = {
  initialState: { status: 'none' },
  decide,
  evolve,
};
