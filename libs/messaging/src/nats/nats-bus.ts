// The bus over NATS: core request/reply with queue groups, JetStream for integration events, core pub/sub for broadcasts.
import { SpanKind } from '@opentelemetry/api';
import { logger } from '@spawnpoint/logging';
import { connect, ErrorCode, type JetStreamClient, type JetStreamManager, type Msg, type NatsConnection, NatsError } from 'nats';
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
import { ensureEventStream, type EventRetention } from './event-stream';
import { fromNatsHeaders, toNatsHeaders } from './nats-headers';

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
}

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
    private readonly requestTimeoutMs: number,
  ) {}

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const stream = options.streamName ?? 'SPAWNPOINT_EVENTS';
    const subjectPrefix = options.eventSubjectPrefix ?? EVENTS_PREFIX;
    // A service outlives NATS restarts: keep reconnecting instead of giving up after the default 10 tries.
    const nc = await connect({ servers: options.servers.split(',').map((s) => s.trim()), name: options.name, maxReconnectAttempts: -1 });
    try {
      const jsm = await nc.jetstreamManager();
      await ensureEventStream(jsm, stream, subjectPrefix, options.retention);
      return new NatsBus(nc, nc.jetstream(), jsm, stream, subjectPrefix, options.requestTimeoutMs ?? 5000);
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
      const headers = toNatsHeaders(timed.headers);
      let reply: Msg;
      try {
        reply = await this.nc.request(subject, encode(payload), { timeout: timed.timeoutMs, headers });
      } catch (err) {
        throw new BusUnavailable(subject, unavailableReason(err));
      }
      return unwrapReply<Res>(reply.data);
    });
  }

  async publish(event: IntegrationEvent, headers?: Headers): Promise<void> {
    const subject = `${this.subjectPrefix}.${eventTopic(event)}`;
    await publishSpan(subject, headers ?? {}, async (carried) => {
      try {
        // msgID: the server drops a republished id within the stream's duplicate window.
        await this.js.publish(subject, encode(event), { msgID: event.id, headers: toNatsHeaders(carried) });
      } catch (err) {
        throw new BusUnavailable(subject, unavailableReason(err));
      }
    }, () => ({ 'messaging.message.id': event.id, 'spawnpoint.stream_id': event.streamId, 'spawnpoint.event.type': event.type }));
  }

  async consume(options: ConsumerOptions, handler: IntegrationHandler): Promise<Unsubscribe> {
    const source = { js: this.js, jsm: this.jsm, stream: this.stream, subjectPrefix: this.subjectPrefix };
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
    await publishSpan(subject, {}, async (carried) => this.nc.publish(subject, encode(payload), { headers: toNatsHeaders(carried) }));
  }

  async listen(subject: string, handler: (payload: any) => void): Promise<Unsubscribe> {
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return log.error({ err }, `bus: subscription ${subject} failed`);
        void processSpan(msg.subject, fromNatsHeaders(msg.headers), async () => handler(decode(msg.data)), { carriedOnly: true })
          .catch((e) => log.error({ err: e }, `bus: listener on ${subject} failed`));
      },
    });
    await this.nc.flush();
    return this.track(() => sub.drain());
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
      await this.nc.drain();
    })();
    return this.closing;
  }

  private async serve(subject: string, msg: Msg, handler: RequestHandler): Promise<void> {
    const headers = fromNatsHeaders(msg.headers);
    const reply = await inSpan(`bus ${subject}`, SpanKind.SERVER, headers, () =>
      serveRequest(handler, decode(msg.data), { subject: msg.subject, headers }),
    );
    msg.respond(reply);
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
  return err instanceof Error ? err.message : String(err);
}
