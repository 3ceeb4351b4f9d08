// Appends through the platform's event store, timed and counted (one wrapper for every adapter).
import type { EventStore } from '@spawnpoint/eventstore';
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from './registry';

const appendDuration = new Histogram({
  name: 'spawnpoint_eventstore_append_duration_seconds', help: 'Time of one append to a stream (any outcome)',
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1], registers: [metricsRegistry],
});
const appended = new Counter({ name: 'spawnpoint_eventstore_appended_events_total', help: 'Events appended', registers: [metricsRegistry] });

/** The store with its appends measured; every other call goes straight through. */
export function meteredEventStore<S extends EventStore>(store: S): S {
  const append = store.appendToStream.bind(store);
  return new Proxy(store, {
    get(target, prop) {
      if (prop !== 'appendToStream') {
        // Bound to the store itself: its methods may use private fields, which a proxy `this` lacks.
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (streamId: string, events: Parameters<EventStore['appendToStream']>[1], expected: Parameters<EventStore['appendToStream']>[2]) => {
        const end = appendDuration.startTimer();
        try {
          const result = await append(streamId, events, expected);
          appended.inc(events.length);
          return result;
        } finally {
          end();
        }
      };
    },
  });
}
