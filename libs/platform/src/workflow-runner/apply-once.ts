// How a service carries out a workflow's command intent on one of its streams (ADR-0010): the runner
// sends at least once, so a command already recorded under the intent's key is not applied again; a
// refusal (a DomainError other than a lost race: the aggregate is gone, stopped, moved on) is final and
// resolves the intent; anything else throws, so the runner retries it.
import { DomainError } from '@spawnpoint/domain';
import { EventStore } from '@spawnpoint/eventstore';
import { appliedBy } from '../commands/command-context';
import { ContentionConflict } from '../commands/execute';

export async function applyIntentOnce(store: EventStore, streamId: string, key: string, apply: () => Promise<unknown>): Promise<void> {
  if (await appliedBy(store, streamId, key)) return;
  await apply().catch((err) => {
    if (!(err instanceof DomainError) || err instanceof ContentionConflict) throw err;
  });
}
