// How a service carries out a workflow's command intent (ADR-0010): the runner sends at least once, so
// the command goes through Aggregate.handle with the intent's key (applied at most once per stream); a
// refusal (a DomainError other than a lost race: the aggregate is gone, stopped, moved on) is final and
// resolves the intent; anything else throws, so the runner retries it.
import { DomainError } from '@spawnpoint/domain';
import { ContentionConflict } from '../commands/execute';

/** A DomainError other than a lost race: the intent's final outcome. */
const isRefusal = (err: unknown) => err instanceof DomainError && !(err instanceof ContentionConflict);

/** What the intent's work decided, or null when it was refused (final); anything else is thrown for the runner to retry. */
export async function unlessRefused<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return null;
  }
}
