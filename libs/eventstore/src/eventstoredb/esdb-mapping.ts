// Translation between the port's types and @eventstore/db-client's.
import {
  ANY,
  AllStreamResolvedEvent,
  AppendExpectedRevision,
  CurrentRevision,
  NO_STREAM,
  Position,
  ResolvedEvent,
  START,
  jsonEvent,
  EventData as EsdbEventData,
  JSONType,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { categoryOf, EventData, EventMetadata, ExpectedRevision, RecordedEvent } from '../event-store';

export function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream' || expected < 0) return NO_STREAM;
  return BigInt(expected);
}

export function fromEsdbRevision(revision: CurrentRevision): number {
  return revision === NO_STREAM ? -1 : Number(revision);
}

export function toEsdbEvent(event: EventData): EsdbEventData {
  return jsonEvent({
    id: event.id ?? randomUUID(),
    type: event.type,
    data: event.data as JSONType,
    metadata: event.metadata ?? {},
  });
}

/**
 * Our positions are the commit position only, so a Position is rebuilt with prepare = commit. That is
 * exact for events written by ordinary appends (their log record has one position), which is all this
 * adapter writes; it is not a valid resume point inside a legacy explicit transaction.
 */
export function toEsdbPosition(position: bigint | undefined): typeof START | Position {
  return position ? { commit: position, prepare: position } : START;
}

/** System streams and system event types ($-prefixed) are the server's own, never ours. */
export function isSystemEvent(streamId: string, type: string): boolean {
  return streamId.startsWith('$') || type.startsWith('$');
}

export function inCategories(streamId: string, categories: string[] | undefined): boolean {
  return !categories?.length || categories.includes(categoryOf(streamId));
}

/** Undefined for system events, and for link events whose target was not resolved. */
export function fromEsdbEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || isSystemEvent(event.streamId, event.type)) return undefined;
  const position = event.position?.commit ?? resolved.commitPosition;
  if (position === undefined) throw new Error('EventStoreDB returned an event without a position (server < 22.6)');
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    position,
    type: event.type,
    data: event.data,
    metadata: isMetadata(event.metadata) ? event.metadata : {},
    createdAt: event.created,
  };
}

function isMetadata(value: unknown): value is EventMetadata {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
