// Durable consumption of integration events from the JetStream stream.
//
// One pull consumer per durable, filtered on the whole event prefix; the bus filters client-side and acks
// events nobody asked for. Why not one server-side consumer per filter: NATS 2.9 allows a single
// filter_subject per consumer, per-filter consumers would lose the order between filters and deliver an
// event twice when filters overlap, and 2.9 cannot change a durable's filter, so a service could never add
// a filter without losing its position. The cost is that each durable receives every event.
// A handler that keeps failing on one event parks it after `maxAttempts` deliveries (handler-failures.ts);
// infrastructure failures are redelivered for as long as they last.
import { AckPolicy, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from 'nats';
import { logger } from '@spawnpoint/logging';
import type { ConsumerOptions, IntegrationEvent, IntegrationHandler } from '../bus';
import { logParked, shouldPark } from '../handler-failures';
import { decode } from '../json';
import { subjectMatches } from '../subjects';
import { consumerAttributes, processSpan } from '../tracing';
import { fromNatsHeaders } from './nats-headers';
import type { EventBodies } from './event-bodies';

const log = logger('bus');

/** Few messages in flight per consumer: they are handled one at a time and their ack_wait runs meanwhile. */
const MAX_BUFFERED = 16;

export interface EventSource {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  subjectPrefix: string;
  /** Where events over the message limit are kept (ADR-0019). */
  bodies: EventBodies;
}

/** Starts consuming; resolves to a function that stops after the handler in progress is done. */
export async function startDurableConsumer(
  source: EventSource,
  options: ConsumerOptions,
  handler: IntegrationHandler,
): Promise<() => Promise<void>> {
  const { js, jsm, stream, subjectPrefix } = source;
  await jsm.consumers.add(stream, {
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: `${subjectPrefix}.>`,
  });
  const consumer = await js.consumers.get(stream, options.durable);
  const messages = await consumer.consume({ max_messages: MAX_BUFFERED });
  let stopping = false;

  const deliver = async (msg: JsMsg) => {
    const topic = msg.subject.slice(subjectPrefix.length + 1);
    if (!options.filters.some((filter) => subjectMatches(filter, topic))) return msg.ack();
    let data: Uint8Array | null;
    try {
      data = await source.bodies.bodyOf(msg);
    } catch (err) {
      // The object store is unavailable: like any infrastructure failure, try again.
      log.error({ err }, `bus: consumer ${options.durable} could not read the body of a large event on ${msg.subject}; will retry`);
      return msg.nak(retryDelayMs(msg.info.redeliveryCount));
    }
    if (data === null) {
      log.error(`bus: consumer ${options.durable} dropped a large event on ${msg.subject}: its body is no longer kept`);
      return msg.term();
    }
    let event: IntegrationEvent;
    try {
      event = decode(data) as IntegrationEvent;
    } catch (err) {
      // Not written by this bus; redelivering cannot fix it.
      log.error({ err }, `bus: consumer ${options.durable} dropped an unreadable message on ${msg.subject}`);
      return msg.term();
    }
    const headers = fromNatsHeaders(msg.headers);
    try {
      await processSpan(msg.subject, headers, async () => handler(event, { headers }), { extra: () => consumerAttributes(options.durable, event, msg.info.redeliveryCount) });
      msg.ack();
    } catch (err) {
      const attempts = msg.info.redeliveryCount;
      if (shouldPark(err, attempts, options.maxAttempts)) {
        logParked(options.durable, event, attempts, err);
        return msg.term();
      }
      log.error({ err, project_id: event.metadata?.projectId }, `bus: consumer ${options.durable} failed on event ${event.id} (${event.type}), delivery ${attempts}; will retry`);
      msg.nak(retryDelayMs(attempts));
    }
  };

  const loop = (async () => {
    for await (const msg of messages) {
      // Buffered messages go straight back so another consumer need not wait out their ack_wait.
      if (stopping) msg.nak();
      else await deliver(msg);
    }
  })().catch((err) => log.error({ err }, `bus: consumer ${options.durable} stopped`));

  return async () => {
    stopping = true;
    await messages.close();
    await loop;
  };
}

/** 0.5s, 1s, 2s ... capped at 30s: a failing handler is retried soon but not in a hot loop. */
function retryDelayMs(deliveryCount: number): number {
  return Math.min(500 * 2 ** (deliveryCount - 1), 30_000);
}
