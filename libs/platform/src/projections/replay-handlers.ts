// The bus side of the admin replay: a service answers `parked.replay.<projection>` for each projection
// it runs, so the gateway reaches the owner of a parked event in either mode.
import { parkedReplaySubject, ReplayParkedRequest } from '@spawnpoint/proto';
import type { ProjectionRunner } from './projection-runner';
import type { Handlers } from '../commands/serve';

export function replayHandlers(runner: ProjectionRunner): Handlers {
  return Object.fromEntries(runner.names.map((name) => [parkedReplaySubject(name), (r: ReplayParkedRequest) => runner.replay(String(r.id))]));
}
