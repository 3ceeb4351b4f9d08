// Subject naming and NATS wildcard matching, shared by both adapters.
import { categoryOf } from '@spawnpoint/eventstore';
import type { IntegrationEvent } from './bus';

/** Default first token of integration event subjects. */
export const EVENTS_PREFIX = 'events';

/** NATS subject tokens cannot contain '.', whitespace, '*' or '>', nor be empty. */
export function subjectToken(value: string): string {
  return value.replace(/[.\s*>]/g, '_') || '_';
}

/** `<category>.<type>`: the part of the subject that consumer filters match. */
export function eventTopic(event: Pick<IntegrationEvent, 'streamId' | 'type'>): string {
  return `${subjectToken(categoryOf(event.streamId))}.${subjectToken(event.type)}`;
}

/** NATS semantics: `*` matches exactly one token, a trailing `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const got = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return got.length > i;
    if (i >= got.length || (want[i] !== '*' && want[i] !== got[i])) return false;
  }
  return want.length === got.length;
}
