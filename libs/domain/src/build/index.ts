import { Decider } from '../kit';
import { BuildCommand } from './commands';
import { decide } from './decide';
import { BuildEvent } from './events';
import { evolve } from './evolve';
import { BuildState } from './state';

export * from './commands';
export { UPLOAD_EXPIRED } from './decide';
export * from './events';
export * from './series';
export * from './state';

export const buildStream = (buildId: string) => `build-${buildId}`;

/** Build names: what a version_tag may be. */
export const BUILD_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const buildDecider: Decider<BuildCommand, BuildEvent, BuildState> = {
  initialState: { status: 'none' },
  decide,
  evolve,
};
