// The bus in memory, for the standalone single-process mode. Same semantics as NATS, except durability:
// publish resolves only once every matching consumer handled the event, so the relay's checkpoint
// (not a stream) is what makes delivery at-least-once. A consumer that keeps failing on one event parks
// it after maxAttempts publishes (handler-failures.ts) instead of holding up the relay for good.
import { context, SpanKind } from '@opentelemetry/api';
import { logger } from '@spawnpoint/logging';
import {
  BusUnavailable,
  type Bus,
  type ConsumerOptions,
  type Headers,
  type IntegrationEvent,
  type IntegrationHandler,
  type RequestHandler,
  type Unsubscribe,
} from '../bus';
import { logParked, shouldPark } from '../handler-failures';
import { jsonCopy } from '../json';
import { serveLocally, unwrap } from '../reply';
import { EVENTS_PREFIX, eventTopic, subjectMatches } from '../subjects';
import { withCommandId } from '../command-context';
import { withDeadline } from '../deadline';
import { consumerAttributes, inSpan, processSpan, publishSpan, requestSpan, withTraceContext } from '../tracing';
import { RecentIds } from './recent-ids';

const log = logger('bus');

export interface InProcessBusOptions {
  /** Default request timeout (default 5000 ms). */
  requestTimeoutMs?: number;
}

interface Responder {
  subject: string;
  handler: RequestHandler;
}

interface ConsumerMember {
  filters: string[];
  handler: IntegrationHandler;
  maxAttempts?: number;
}

interface Listener {
  subject: string;
  handler: (payload: any) => void;
}

/** How many event ids publish remembers for dedupe. */
const REMEMBERED_IDS = 10_000;

export class InProcessBus implements Bus {
  private readonly responders: Responder[] = [];
  private readonly routes = new Map<string, Responder[]>();
  /** Round-robin position per requested subject, like a queue group spreading requests. */
  private readonly turns = new Map<string, number>();
  /** Durable name -> its members; members of one durable share the events like replicas. */
  private readonly groups = new Map<string, ConsumerMember[]>();
  private readonly groupTurns = new Map<string, number>();
  private readonly listeners: Listener[] = [];
  /** Listeners per concrete broadcast subject, and each durable's members per event topic: memoised until they change. */
  private readonly listenersBySubject = new Map<string, Listener[]>();
  private readonly membersByTopic = new Map<string, [string, ConsumerMember[]][]>();
  private readonly published = new RecentIds(REMEMBERED_IDS);
  /** Failed deliveries so far per durable and event id (the relay's retries are the redeliveries). */
  private readonly failures = new Map<string, number>();
  private readonly requestTimeoutMs: number;
  private closed = false;

  constructor(options: InProcessBusOptions = {}) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? 5000;
  }

  async handle(subject: string, handler: RequestHandler): Promise<Unsubscribe> {
    const responder = { subject, handler };
    this.responders.push(responder);
    this.routes.clear();
    return async () => {
      remove(this.responders, responder);
      this.routes.clear();
    };
  }

  async request<Res = unknown>(
    subject: string,
    payload: unknown,
    options: { timeoutMs?: number; headers?: Headers } = {},
  ): Promise<Res> {
    const candidates = this.closed ? [] : this.respondersFor(subject);
    if (candidates.length === 0) throw new BusUnavailable(subject, 'no responders');
    const responder = candidates[this.nextTurn(this.turns, subject) % candidates.length];
    return requestSpan(subject, async () => {
      const timed = withDeadline(withTraceContext(withCommandId(options.headers)), options.timeoutMs ?? this.requestTimeoutMs);
      if (timed.timeoutMs <= 0) throw new BusUnavailable(subject, 'timeout');
      const headers = timed.headers;
      // The caller's context is right here: no need to read it back from the headers.
      const reply = inSpan(`bus ${responder.subject}`, SpanKind.SERVER, headers, () =>
        serveLocally(responder.handler, jsonCopy(payload), { subject, headers: { ...headers } }), undefined, context.active());
      return unwrap<Res>(await withTimeout(reply, timed.timeoutMs, subject));
    });
  }

  /** Responders per concrete subject, memoised until the set of responders changes. */
  private respondersFor(subject: string): Responder[] {
    return memoised(this.routes, subject, () => this.responders.filter((r) => subjectMatches(r.subject, subject)));
  }

  async publish(event: IntegrationEvent, headers?: Headers): Promise<void> {
    const topic = eventTopic(event);
    const subject = `${EVENTS_PREFIX}.${topic}`;
    if (this.closed) throw new BusUnavailable(subject, 'closed');
    if (this.published.has(event.id)) return;
    await publishSpan(subject, headers ?? {}, async (carried) => {
      const deliveries = this.membersFor(topic).map(([durable, matching]) => {
        const member = matching[this.nextTurn(this.groupTurns, durable) % matching.length];
        return this.deliver(durable, member, event, subject, carried);
      });
      // Wait for every group, then fail if any failed: the publisher retries, and groups that succeeded
      // see the event again (at-least-once), but no group is still busy with it when the retry comes.
      const failure = (await Promise.allSettled(deliveries)).find((r) => r.status === 'rejected');
      if (failure) throw failure.reason;
    }, () => ({ 'messaging.message.id': event.id, 'spawnpoint.stream_id': event.streamId, 'spawnpoint.event.type': event.type }));
    // Remembered only once delivered, so a retried publish is not mistaken for a duplicate.
    this.published.add(event.id);
  }

  /** Each durable with members for this topic, and those members. */
  private membersFor(topic: string): [string, ConsumerMember[]][] {
    return memoised(this.membersByTopic, topic, () => [...this.groups.entries()]
      .map(([durable, members]): [string, ConsumerMember[]] => [durable, members.filter((m) => m.filters.some((f) => subjectMatches(f, topic)))])
      .filter(([, matching]) => matching.length > 0));
  }

  /** One delivery; an event its handler keeps failing on is parked after maxAttempts (handler-failures.ts). */
  private async deliver(durable: string, member: ConsumerMember, event: IntegrationEvent, subject: string, carried: Headers): Promise<void> {
    const key = `${durable} ${event.id}`;
    try {
      await processSpan(subject, carried, async () => member.handler(jsonCopy(event), { headers: { ...carried } }), {
        extra: () => consumerAttributes(durable, event, (this.failures.get(key) ?? 0) + 1),
      });
      this.failures.delete(key);
    } catch (err) {
      const attempts = (this.failures.get(key) ?? 0) + 1;
      if (shouldPark(err, attempts, member.maxAttempts)) {
        this.failures.delete(key);
        logParked(durable, event, attempts, err);
        return;
      }
      if (this.failures.size >= REMEMBERED_IDS) this.failures.clear();
      this.failures.set(key, attempts);
      throw err;
    }
  }

  async consume(options: ConsumerOptions, handler: IntegrationHandler): Promise<Unsubscribe> {
    const member: ConsumerMember = { filters: options.filters, handler, maxAttempts: options.maxAttempts };
    const members = this.groups.get(options.durable) ?? [];
    members.push(member);
    this.groups.set(options.durable, members);
    this.membersByTopic.clear();
    return async () => {
      remove(members, member);
      if (members.length === 0 && this.groups.get(options.durable) === members) this.groups.delete(options.durable);
      this.membersByTopic.clear();
    };
  }

  async broadcast(subject: string, payload: unknown): Promise<void> {
    if (this.closed) throw new BusUnavailable(subject, 'closed');
    const listeners = memoised(this.listenersBySubject, subject, () => this.listeners.filter((l) => subjectMatches(l.subject, subject)));
    if (listeners.length === 0) return;
    // The trace context travels with the message, as in NATS headers.
    await publishSpan(subject, {}, async (carried) => {
      // One copy for every listener here (they read it, never change it: a lobby update with its members
      // copied once per listener was a tenth of a join's CPU with two listeners).
      const copy = jsonCopy(payload);
      for (const listener of listeners) {
        // Asynchronous, as over NATS: a listener never runs inside broadcast(), and its failure stays its own.
        queueMicrotask(() => {
          void processSpan(subject, carried, async () => listener.handler(copy), { carriedOnly: true })
            .catch((err) => log.error({ err }, `bus: listener on ${subject} failed`));
        });
      }
    });
  }

  async listen(subject: string, handler: (payload: any) => void): Promise<Unsubscribe> {
    const listener = { subject, handler };
    this.listeners.push(listener);
    this.listenersBySubject.clear();
    return async () => {
      remove(this.listeners, listener);
      this.listenersBySubject.clear();
    };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new BusUnavailable('bus', 'closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.responders.length = 0;
    this.routes.clear();
    this.groups.clear();
    this.listeners.length = 0;
  }

  private nextTurn(turns: Map<string, number>, key: string): number {
    const turn = turns.get(key) ?? 0;
    turns.set(key, turn + 1);
    return turn;
  }
}

function remove<T>(list: T[], item: T): void {
  const i = list.indexOf(item);
  if (i !== -1) list.splice(i, 1);
}

/**
 * Rejects with BusUnavailable after `ms`, as NATS does; the handler itself cannot be cancelled. One promise
 * and one timer a request (not an async function around Promise.race: three more promises a request).
 */
function withTimeout<T>(promise: Promise<T>, ms: number, subject: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BusUnavailable(subject, 'timeout')), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** `compute(key)` kept in `memo` (cleared past 10,000 keys, so many one-off subjects cannot grow it). */
function memoised<T>(memo: Map<string, T>, key: string, compute: () => T): T {
  let found = memo.get(key);
  if (found === undefined) {
    found = compute();
    if (memo.size > 10_000) memo.clear();
    memo.set(key, found);
  }
  return found;
}
