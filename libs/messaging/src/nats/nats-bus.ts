// The bus over NATS: core request/reply with queue groups, JetStream for integration events, core pub/sub for broadcasts.
import { SpanKind } from '@opentelemetry/api';
import { logger } from '@spawnpoint/logging';
import { connect, Empty, ErrorCode, type JetStreamClient, type JetStreamManager, type Msg, type NatsConnection, NatsError } from 'nats';
import {
  BusUnavailable,
  type Bus,
  type ConsumerLag,
  type ConsumerOptions,
  type Headers,
  type IntegrationEvent,
  type IntegrationHandler,
  type RequestHandler,
  type Unsubscribe,
} from '../bus';
import { decode, encode } from '../json';
import { serveRequest, unwrapReply } from '../reply';
import { EVENTS_PREFIX, eventTopic } from '../subjects';
import { withCommandId } from '../command-context';
import { withDeadline } from '../deadline';
import { inSpan, processSpan, publishSpan, requestSpan, withTraceContext } from '../tracing';
import { startDurableConsumer } from './durable-consumer';
import { DEFAULT_EVENT_RETENTION, ensureEventStream, type EventRetention } from './event-stream';
import { fromNatsHeaders, toNatsHeaders } from './nats-headers';
import { BodyOutbox, bodyOf, BodyUnavailable } from './body-outbox';
import { BroadcastAssembler, splitBroadcast } from './broadcast-parts';
import { messageLimit } from './message-limit';
import { EventBodies, eventBodiesBucket } from './event-bodies';

const log = logger('bus');

export interface NatsBusOptions {
  /** One URL, or several separated by commas. */
  servers: string;
  /** Connection name, shown by the server's monitoring. */
  name?: string;
  /** JetStream stream holding integration events (default SPAWNPOINT_EVENTS). */
  streamName?: string;
  /** Default request timeout (default 5000 ms). */
  requestTimeoutMs?: number;
  /** First token of event subjects (default `events`). Streams cannot overlap, so tests use their own. */
  eventSubjectPrefix?: string;
  /** How long and how much the event stream keeps (default 7 days, no byte limit). */
  retention?: EventRetention;
  /**
   * Largest message this bus sends, on top of the server's max_payload (which always bounds it): a body
   * over it (less header room) travels in parts (ADR-0019). For tests; default the server's limit.
   */
  maxMessageBytes?: number;
  /** Largest body received in parts (default 256 MiB): a reference to a larger one is refused. */
  maxBodyBytes?: number;
}

/** Far above any view our limits allow, far below V8's largest string (a reply is decoded as one). */
const DEFAULT_MAX_BODY_BYTES = 256 * 1024 * 1024;
/** How long a reply body is held for its requester's pull (it is pulled at once; this only bounds a requester gone). */
const REPLY_HOLD_MS = 30_000;
/** A broadcast's parts all arrive within this, or the broadcast is dropped (as a lost one). */
const BROADCAST_ASSEMBLY_MS = 10_000;

/** Replicas of a service share requests; the group is per subject, so one name serves all. */
const QUEUE_GROUP = 'spawnpoint';

export class NatsBus implements Bus {
  /** Stops every subscription and consumer still open, for close(). */
  private readonly stoppers = new Set<Unsubscribe>();
  private closing?: Promise<void>;
  /** Durables consumed through this connection: their lag is read for the metrics (consumerLag). */
  private readonly durables = new Set<string>();
  private lagManager?: Promise<JetStreamManager>;
  private readonly reconnectListeners = new Set<() => void>();
  private watchingStatus = false;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly subjectPrefix: string,
    /** Integration events over the message limit, by reference (ADR-0019). */
    private readonly eventBodies: EventBodies,
    private readonly requestTimeoutMs: number,
    private readonly maxMessageBytes: number,
    private readonly maxBodyBytes: number,
  ) {
    this.outbox = new BodyOutbox(nc, () => this.limit());
    this.outbox.start();
  }

  /** Bodies over the message limit, held until their receiver pulled them (ADR-0019). */
  private readonly outbox: BodyOutbox;

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const stream = options.streamName ?? 'SPAWNPOINT_EVENTS';
    const subjectPrefix = options.eventSubjectPrefix ?? EVENTS_PREFIX;
    // A service outlives NATS restarts: keep reconnecting instead of giving up after the default 10 tries.
    const nc = await connect({ servers: options.servers.split(',').map((s) => s.trim()), name: options.name, maxReconnectAttempts: -1 });
    try {
      const jsm = await nc.jetstreamManager();
      await ensureEventStream(jsm, stream, subjectPrefix, options.retention);
      const js = nc.jetstream();
      const bodies = new EventBodies(js, eventBodiesBucket(stream), (options.retention ?? DEFAULT_EVENT_RETENTION).maxAgeMs);
      const bus = new NatsBus(nc, js, jsm, stream, subjectPrefix, bodies, options.requestTimeoutMs ?? 5000, options.maxMessageBytes ?? Infinity, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
      // The outbox's subscription is on the server before any reference to it is sent.
      await nc.flush();
      return bus;
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  async handle(subject: string, handler: RequestHandler): Promise<Unsubscribe> {
    const inFlight = new Set<Promise<void>>();
    const sub = this.nc.subscribe(subject, {
      queue: QUEUE_GROUP,
      callback: (err, msg) => {
        if (err) return log.error({ err }, `bus: subscription ${subject} failed`);
        const served = this.serve(subject, msg, handler)
          .catch((e) => log.error({ err: e }, `bus: could not answer on ${msg.subject}`))
          .finally(() => inFlight.delete(served));
        inFlight.add(served);
      },
    });
    // Once the server has our subscription, a request from any connection reaches us.
    await this.nc.flush();
    return this.track(async () => {
      await sub.drain();
      await Promise.all(inFlight);
    });
  }

  async request<Res = unknown>(
    subject: string,
    payload: unknown,
    options: { timeoutMs?: number; headers?: Headers } = {},
  ): Promise<Res> {
    return requestSpan(subject, async () => {
      const timed = withDeadline(withTraceContext(withCommandId(options.headers)), options.timeoutMs ?? this.requestTimeoutMs);
      // The caller's deadline has passed: nothing is sent (its handler would drop it anyway).
      if (timed.timeoutMs <= 0) throw new BusUnavailable(subject, 'timeout');
      const timeout = timed.timeoutMs;
      let data = encode(payload);
      let carried = timed.headers;
      // A body over the limit is held here and the responder pulls it (a queue group would scatter parts).
      const offer = data.length > this.limit() ? this.outbox.offer(data, timeout + 1000, false) : undefined;
      if (offer) [data, carried] = [Empty, { ...carried, ...offer.headers }];
      let body: Uint8Array;
      try {
        const reply = await this.nc.request(subject, data, { timeout, headers: toNatsHeaders(carried) });
        body = await bodyOf(this.nc, reply, timeout, this.maxBodyBytes);
      } catch (err) {
        throw new BusUnavailable(subject, unavailableReason(err));
      } finally {
        offer?.release();
      }
      return unwrapReply<Res>(body);
    });
  }

  async publish(event: IntegrationEvent, headers?: Headers): Promise<void> {
    const subject = `${this.subjectPrefix}.${eventTopic(event)}`;
    await publishSpan(subject, headers ?? {}, async (carried) => {
      try {
        let data = encode(event);
        // Over the limit: the body goes to the object store first, the stream's message refers to it.
        if (data.length > this.limit()) [data, carried] = [Empty, { ...carried, ...(await this.eventBodies.put(event.id, data)) }];
        // msgID: the server drops a republished id within the stream's duplicate window.
        await this.js.publish(subject, data, { msgID: event.id, headers: toNatsHeaders(carried) });
      } catch (err) {
        throw new BusUnavailable(subject, unavailableReason(err));
      }
    }, () => ({ 'messaging.message.id': event.id, 'spawnpoint.stream_id': event.streamId, 'spawnpoint.event.type': event.type }));
  }

  async consume(options: ConsumerOptions, handler: IntegrationHandler): Promise<Unsubscribe> {
    const source = { js: this.js, jsm: this.jsm, stream: this.stream, subjectPrefix: this.subjectPrefix, bodies: this.eventBodies };
    const stop = await startDurableConsumer(source, options, handler);
    this.durables.add(options.durable);
    return this.track(async () => {
      this.durables.delete(options.durable);
      await stop();
      // Acks are fire-and-forget: make sure they reached the server before a successor takes over.
      await this.nc.flush();
    });
  }

  async broadcast(subject: string, payload: unknown): Promise<void> {
    // The trace context rides in the headers, so a listener's work joins the sender's trace.
    await publishSpan(subject, {}, async (carried) => {
      const data = encode(payload);
      const limit = this.limit();
      if (data.length <= limit) return this.nc.publish(subject, data, { headers: toNatsHeaders(carried) });
      for (const part of splitBroadcast(data, limit, carried)) this.nc.publish(subject, part.data, { headers: part.headers });
    });
  }

  async listen(subject: string, handler: (payload: any) => void): Promise<Unsubscribe> {
    const parts = new BroadcastAssembler(subject, this.maxBodyBytes, BROADCAST_ASSEMBLY_MS);
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return log.error({ err }, `bus: subscription ${subject} failed`);
        const data = parts.add(msg.data, msg.headers);
        if (!data) return;
        void processSpan(msg.subject, fromNatsHeaders(msg.headers), async () => handler(decode(data)), { carriedOnly: true })
          .catch((e) => log.error({ err: e }, `bus: listener on ${subject} failed`));
      },
    });
    await this.nc.flush();
    return this.track(async () => {
      await sub.drain();
      parts.stop();
    });
  }

  async ping(): Promise<void> {
    await this.nc.flush();
  }

  /** Each durable's num_pending from its consumer info, read with a short timeout (a scrape must not hang); one that fails is left out. */
  async consumerLag(timeoutMs = 1000): Promise<ConsumerLag[]> {
    this.lagManager ??= this.nc.jetstreamManager({ timeout: timeoutMs, checkAPI: false });
    const jsm = await this.lagManager;
    const infos = await Promise.allSettled([...this.durables].map((durable) => jsm.consumers.info(this.stream, durable)));
    return infos.flatMap((r) => (r.status === 'fulfilled' ? [{ durable: r.value.name, pending: r.value.num_pending }] : []));
  }

  onReconnect(listener: () => void): Unsubscribe {
    this.reconnectListeners.add(listener);
    this.watchStatus();
    return async () => void this.reconnectListeners.delete(listener);
  }

  /** One loop over the connection's status events, started by the first reconnect listener. */
  private watchStatus(): void {
    if (this.watchingStatus) return;
    this.watchingStatus = true;
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type !== 'reconnect') continue;
        for (const listener of this.reconnectListeners) {
          try {
            listener();
          } catch (err) {
            log.error({ err }, 'bus: a reconnect listener failed');
          }
        }
      }
    })().catch((err: unknown) => log.error({ err }, 'bus: watching the connection status failed'));
  }

  /** Lets handlers and consumers finish, then drains the connection. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.stoppers].map((stop) => stop()));
      this.outbox.stop();
      await this.nc.drain();
    })();
    return this.closing;
  }

  private async serve(subject: string, msg: Msg, handler: RequestHandler): Promise<void> {
    const headers = fromNatsHeaders(msg.headers);
    const reply = await inSpan(`bus ${subject}`, SpanKind.SERVER, headers, async () => {
      let body: Uint8Array;
      try {
        body = await bodyOf(this.nc, msg, this.requestTimeoutMs, this.maxBodyBytes);
      } catch (err) {
        // The request's body could not be fetched from its sender: it is not handled, and says so at once.
        log.warn(`bus: request on ${msg.subject} not handled: ${(err as Error).message}`);
        return encode({ ok: false, error: { error: 'Service unavailable', status: 503, detail: 'the request body could not be fetched from its sender' } });
      }
      return serveRequest(handler, decode(body), { subject: msg.subject, headers });
    });
    // A reply over the limit is held for the requester to pull; the reply message only refers to it.
    if (reply.length <= this.limit()) return void msg.respond(reply);
    const offer = this.outbox.offer(reply, REPLY_HOLD_MS, true);
    msg.respond(Empty, { headers: toNatsHeaders(offer.headers) });
  }

  /** Body bytes one message may carry now (the server's max_payload can change with a reconnect). */
  private limit(): number {
    return messageLimit(this.nc, this.maxMessageBytes);
  }

  /** An idempotent unsubscribe that close() also runs if the caller never did. */
  private track(stop: () => Promise<void>): Unsubscribe {
    let stopped: Promise<void> | undefined;
    const unsubscribe: Unsubscribe = () => {
      this.stoppers.delete(unsubscribe);
      stopped ??= stop();
      return stopped;
    };
    this.stoppers.add(unsubscribe);
    return unsubscribe;
  }
}

function unavailableReason(err: unknown): string {
  if (err instanceof NatsError && err.code === ErrorCode.NoResponders) return 'no responders';
  if (err instanceof NatsError && err.code === ErrorCode.Timeout) return 'timeout';
  // A reply lost on the way is a timeout to the caller: the command may have been applied (known-outcome.ts asks again).
  if (err instanceof BodyUnavailable) return `${err.message}: timeout`;
  return err instanceof Error ? err.message : String(err);
}
