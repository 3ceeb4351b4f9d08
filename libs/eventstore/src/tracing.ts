// A CLIENT span per append and read of the store (any adapter), opened only inside a sampled span (a
// request's, a projection's): the subscriptions' own polling never opens one. Without a registered
// OpenTelemetry SDK there is never an active span, so this costs one lookup. Stream ids are fine in span
// attributes (never in metric labels).
import { Attributes, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { WrongExpectedVersion } from './event-store';

export type StoreSystem = 'postgresql' | 'eventstoredb';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.eventstore');

export function storeSpan<T>(
  system: StoreSystem,
  operation: 'append' | 'read' | 'readAll',
  attributes: () => Attributes,
  fn: () => Promise<T>,
  outcome?: (result: T) => Attributes,
): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return fn();
  const base = { 'db.system': system, 'db.system.name': system, 'db.operation': operation, 'db.operation.name': operation };
  return tracer().startActiveSpan(`eventstore ${operation}`, { kind: SpanKind.CLIENT, attributes: { ...base, ...attributes() } }, async (span) => {
    try {
      const result = await fn();
      if (outcome) span.setAttributes(outcome(result));
      return result;
    } catch (err) {
      // A lost optimistic race is an answer the caller handles (read again and decide), not a failure.
      if (err instanceof WrongExpectedVersion) span.setAttribute('spawnpoint.wrong_expected_version', true);
      else {
        span.recordException(err instanceof Error ? err : String(err));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      throw err;
    } finally {
      span.end();
    }
  });
}

export const appendAttributes = (streamId: string, events: number, expected: unknown): Attributes =>
  ({ 'spawnpoint.stream_id': streamId, 'spawnpoint.events': events, 'spawnpoint.expected_revision': String(expected) });

export const appendOutcome = (result: { nextRevision: number; position: bigint }): Attributes =>
  ({ 'spawnpoint.revision': result.nextRevision, 'spawnpoint.position': result.position.toString() });

export const readOutcome = (result: { events: unknown[] } | unknown[]): Attributes =>
  ({ 'spawnpoint.events': Array.isArray(result) ? result.length : result.events.length });
