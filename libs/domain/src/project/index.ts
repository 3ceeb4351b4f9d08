import { Decider } from '../kit';
import { ProjectCommand } from './commands';
import { decide } from './decide';
import { ProjectEvent } from './events';
import { evolve } from './evolve';
import { ProjectState } from './state';

export * from './commands';
export * from './events';
export * from './settings';
export * from './state';

export const projectStream = (projectId: string) => `project-${projectId}`;

export const projectDecider: Decider<ProjectCommand, ProjectEvent, ProjectState> = {
  initialState: { status: 'none' },
  decide,
  evolve,
};
