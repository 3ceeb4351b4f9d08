// How a service carries out a workflow's command intent on one of its streams (ADR-0010): the runner
// sends at least once, so a command already recorded under the intent's key is not applied again; a
// refusal (a DomainError other than a lost race: the aggregate is gone, stopped, moved on) is final and
// resolves the intent; anything else throws, so the runner retries it.
import { DomainError } from '@spawnpoint/domain';
import { EventMetadata } from '@spawnpoint/eventstore';
import { ContentionConflict } from '../commands/execute';
import { StateCache } from '../commands/state-cache';

/**
 * With the stream's StateCache: one optimistic execute that does nothing when the key is on the stream
 * already (StateCache.execute's `once`: usually no read at all, the append checking the cached state).
 */
export function executeIntentOnce<C>(cache: StateCache<C, any, any>, streamId: string, key: string, command: C, metadata: EventMetadata = {}): Promise<void> {
  return intentOutcome(() => cache.execute(streamId, command, { ...metadata, commandId: key }, { optimistic: true, once: key }));
}

/** A refusal is the intent's outcome; anything else is thrown for the runner to retry. */
export async function intentOutcome(apply: () => Promise<unknown>): Promise<void> {
  await apply().catch((err) => {
    if (!(err instanceof DomainError) || err instanceof ContentionConflict) throw err;
  });
}
