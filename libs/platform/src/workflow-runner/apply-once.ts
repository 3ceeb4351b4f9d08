// How a service carries out a workflow's command intent on one of its streams (ADR-0010): the runner
// sends at least once, so a command already recorded under the intent's key is not applied again; a
// refusal (a DomainError other than a lost race: the aggregate is gone, stopped, moved on) is final and
// resolves the intent; anything else throws, so the runner retries it.
import { DomainError, DomainEvent } from '@spawnpoint/domain';
import { EventMetadata } from '@spawnpoint/eventstore';
import { ContentionConflict, Executed } from '../commands/execute';
import { StateCache } from '../commands/state-cache';

/** A DomainError other than a lost race: the intent's final outcome. */
const isRefusal = (err: unknown) => err instanceof DomainError && !(err instanceof ContentionConflict);

/**
 * With the stream's StateCache: one optimistic execute that does nothing when the key is on the stream
 * already (StateCache.execute's `once`: usually no read at all, the append checking the cached state).
 * What it decided (`repeated`: the key was there already; its state, the stream's then), or null when
 * refused.
 */
export async function executeIntentOnce<C, E extends DomainEvent, S>(
  cache: StateCache<C, E, S>, streamId: string, key: string, command: C, metadata: EventMetadata = {},
): Promise<(Executed<S, E> & { repeated?: boolean }) | null> {
  try {
    return await cache.execute(streamId, command, { ...metadata, commandId: key }, { optimistic: true, once: key });
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return null;
  }
}

/** A refusal is the intent's outcome; anything else is thrown for the runner to retry. */
export async function intentOutcome(apply: () => Promise<unknown>): Promise<void> {
  await apply().catch((err) => {
    if (!isRefusal(err)) throw err;
  });
}
