// How a service carries out a workflow's command intent on one of its streams (ADR-0010): the runner
// sends at least once, so a command already recorded under the intent's key is not applied again; a
// refusal (a DomainError other than a lost race: the aggregate is gone, stopped, moved on) is final and
// resolves the intent; anything else throws, so the runner retries it.
import { DomainError } from '@spawnpoint/domain';
import { EventStore } from '@spawnpoint/eventstore';
import { appliedBy } from '../commands/command-context';
import { ContentionConflict } from '../commands/execute';
import { StateCache } from '../commands/state-cache';

/**
 * `source`: the stream's StateCache where the service has one (the check is a read of the stream's tail,
 * and `apply` may decide on the cached state it leaves, optimistically), else the store (a read of the
 * whole stream).
 */
export async function applyIntentOnce(source: EventStore | StateCache<any, any, any>, streamId: string, key: string, apply: () => Promise<unknown>): Promise<void> {
  const done = source instanceof StateCache ? (await source.applied(streamId, key)).applied : await appliedBy(source, streamId, key);
  if (done) return;
  await apply().catch((err) => {
    if (!(err instanceof DomainError) || err instanceof ContentionConflict) throw err;
  });
}
