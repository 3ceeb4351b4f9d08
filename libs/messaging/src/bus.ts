// The bus port: request/reply for commands and queries between services, and integration events.
// Adapters: NATS (distributed) and in-process (standalone). Both pass one contract suite.

export type Headers = Record<string, string>;

/** A failure a handler wants the caller to see as-is (HTTP status + spec error body). */
export interface RemoteErrorBody {
  error: string;
  status: number;
  detail?: unknown;
}

export class RemoteError extends Error {
  constructor(readonly body: RemoteErrorBody) {
    super(body.error);
    this.name = 'RemoteError';
  }
}

/** No responder for a subject, or it did not answer in time. */
export class BusUnavailable extends Error {
  constructor(readonly subject: string, reason: string) {
    super(`bus: ${subject}: ${reason}`);
    this.name = 'BusUnavailable';
  }
}

export interface RequestContext {
  subject: string;
  headers: Headers;
}

/**
 * Handlers return a JSON-serialisable reply, or throw RemoteError (sent back as such); any other error
 * is sent back as 500. Requests reach the handler as a copy; in process, the reply reaches the caller
 * without a copy, so a handler must not change a value after returning it.
 */
export type RequestHandler<Req = any, Res = any> = (payload: Req, ctx: RequestContext) => Promise<Res> | Res;

/** An integration event as it travels on the bus (a store event republished by the relay). */
export interface IntegrationEvent<T = unknown> {
  id: string;
  type: string;
  streamId: string;
  revision: number;
  position: string;
  data: T;
  metadata: Record<string, unknown>;
}

export type IntegrationHandler = (event: IntegrationEvent, ctx: { headers: Headers }) => Promise<void> | void;

export interface ConsumerOptions {
  /** Durable consumer name: a restarted consumer resumes where it left off. */
  durable: string;
  /** Event type filters, e.g. ['server.*'] or ['build.BuildReady']: subject tokens after `events.`. */
  filters: string[];
  /**
   * Deliveries of an event whose handler fails (other than for an infrastructure failure) before it is
   * parked: logged and not delivered to this consumer again. Default MAX_HANDLER_ATTEMPTS (10).
   */
  maxAttempts?: number;
}

/** A durable consumer's backlog (NATS JetStream: `num_pending` of its consumer info). */
export interface ConsumerLag {
  durable: string;
  /** Messages of the stream not delivered to it yet. */
  pending: number;
}

export interface Unsubscribe {
  (): Promise<void>;
}

/**
 * The bus's typed subjects: `subject: [request, reply]`. Empty here; the platform declares every service's
 * subjects (libs/platform `bus-subjects.ts`, from the contracts in proto), so a request's reply type is
 * known where it is sent and a route's handler must take and answer the subject's types.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BusSubjects {}

export interface RequestOptions { timeoutMs?: number; headers?: Headers }

export interface Bus {
  /** Serve requests on `subject` (queue group: several replicas share the load). */
  handle(subject: string, handler: RequestHandler): Promise<Unsubscribe>;
  /**
   * Send a request and await the reply. Throws RemoteError / BusUnavailable. Trace context is injected into
   * headers. A subject of `BusSubjects` takes its request type and answers its reply type; any other subject
   * (a projection's replay, a probe) answers `unknown` unless the caller names the reply.
   */
  request<S extends keyof BusSubjects>(subject: S, payload: BusSubjects[S][0], options?: RequestOptions): Promise<BusSubjects[S][1]>;
  request<Res = unknown, S extends string = string>(subject: S extends keyof BusSubjects ? never : S, payload: unknown, options?: RequestOptions): Promise<Res>;
  /** Publish an integration event exactly once per event id (dedupe on id). */
  publish(event: IntegrationEvent, headers?: Headers): Promise<void>;
  /** Durable, at-least-once consumption; the handler must be idempotent. Ack after the handler resolves. */
  consume(options: ConsumerOptions, handler: IntegrationHandler): Promise<Unsubscribe>;
  /** Ephemeral fan-out (every subscriber gets every message, nothing kept): e.g. live lobby updates. */
  broadcast(subject: string, payload: unknown): Promise<void>;
  listen(subject: string, handler: (payload: any) => void): Promise<Unsubscribe>;
  ping(): Promise<void>;
  /** The backlog of each durable consumer this bus runs, where the bus keeps one (NATS; in process, publish waits for consumers). */
  consumerLag?(): Promise<ConsumerLag[]>;
  /**
   * Calls `listener` each time the connection to the broker comes back after a loss (NATS): broadcasts sent
   * meanwhile were missed, so a cache kept fresh by them must be dropped. In process there is nothing to lose.
   */
  onReconnect?(listener: () => void): Unsubscribe;
  close(): Promise<void>;
}
