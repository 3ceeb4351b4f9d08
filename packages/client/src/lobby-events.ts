// A lobby's live events (GET /v3/lobbies/{config}/me/events) with automatic reconnect: after a dropped
// connection (a gateway restart, a network blip) it reconnects with backoff and sends the last event id
// as Last-Event-ID, so the gateway replays what was missed before live events resume. It ends for good on
// lobby_deleted, on close(), or when the gateway refuses the stream (401, 403, 404: not in a lobby).
import { errorFor, SpawnpointError } from './errors';
import { SseParser } from './sse';
import type { Transport } from './transport';
import type { DeletedLobby, Lobby, QueueStats } from './types';

export interface LobbyEventMap {
  connected: Lobby;
  lobby_updated: Lobby;
  match_found: Lobby;
  queue_stats: QueueStats;
  lobby_deleted: { id: string; reason?: string } | DeletedLobby;
  ping: Record<string, never>;
}
export type LobbyEventName = keyof LobbyEventMap;
export interface LobbyEvent<K extends LobbyEventName = LobbyEventName> { event: K; data: LobbyEventMap[K]; id: string | null }

/** The project-wide stream of a configuration (server key): every lobby's changes and the project's queues. */
export interface ProjectLobbyEventMap {
  connected: { config: string };
  lobby_updated: Lobby;
  lobby_deleted: { id: string; reason?: string };
  queue_stats: { queues: ({ mode: string; region: string } & QueueStats)[] };
  ping: Record<string, never>;
}
export interface StreamEvent<M, K extends keyof M = keyof M> { event: K; data: M[K]; id: string | null }

export interface LobbyEventsOptions {
  /** Resume after this event id (from an earlier stream's lastEventId). */
  lastEventId?: string;
  /** Reconnect after a dropped connection (default true). */
  reconnect?: boolean;
  /** First reconnect delay in ms (default 500; doubles up to 15 s; the server's `retry:` wins). */
  reconnectDelayMs?: number;
}

type Listener<M, K extends keyof M> = (data: M[K], event: StreamEvent<M, K>) => void;

/** `M`: the stream's events (a player's lobby by default; ProjectLobbyEventMap for the project-wide stream). */
export class LobbyEventStream<M extends object = LobbyEventMap> {
  /** The id of the last event received: what a reconnect sends as Last-Event-ID. */
  lastEventId: string | null;
  /** Connections opened so far (1 + reconnects). */
  connections = 0;
  /** Resolves when the stream has ended for good; rejects with the refusal that ended it. */
  readonly closed: Promise<void>;
  private readonly listeners = new Map<string, Set<(...args: never[]) => void>>();
  private readonly abort = new AbortController();
  private finish!: (err?: unknown) => void;
  private done = false;

  /** `endsOnDelete`: a player's stream ends with its lobby; the project-wide one goes on. */
  constructor(private readonly transport: Transport, private readonly path: string, private readonly headers: Record<string, string | undefined>, private readonly options: LobbyEventsOptions = {}, private readonly endsOnDelete = true) {
    this.lastEventId = options.lastEventId ?? null;
    this.closed = new Promise<void>((resolve, reject) => {
      this.finish = (err) => (err ? reject(err) : resolve());
    });
    this.closed.catch(() => undefined);
    void this.run();
  }

  /** Listens to one event name; 'open' / 'reconnecting' / 'error' report the connection. Returns the removal. */
  on<K extends keyof M & string>(event: K, fn: Listener<M, K>): () => void;
  on(event: 'event', fn: (e: StreamEvent<M>) => void): () => void;
  on(event: 'open', fn: () => void): () => void;
  on(event: 'reconnecting', fn: (info: { attempt: number; delayMs: number; error: unknown }) => void): () => void;
  on(event: 'error', fn: (err: unknown) => void): () => void;
  on(event: string, fn: (...args: never[]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set!.delete(fn);
  }

  /** The next event of that name (any, without one), e.g. `await stream.next('lobby_updated')`. */
  next<K extends keyof M & string>(event?: K, timeoutMs = 30_000): Promise<StreamEvent<M, K>> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => { off(); reject(new Error(`no ${event ?? 'event'} within ${timeoutMs} ms`)); }, timeoutMs);
      const off = this.on('event', (e) => {
        if (event && e.event !== event) return;
        clearTimeout(t);
        off();
        resolve(e as unknown as StreamEvent<M, K>);
      });
    });
  }

  /** Ends the stream (no reconnect). */
  close(): void {
    if (this.done) return;
    this.done = true;
    this.abort.abort();
    this.finish();
  }

  private emit(name: string, ...args: unknown[]): void {
    for (const fn of this.listeners.get(name) ?? []) {
      try {
        (fn as (...a: unknown[]) => void)(...args);
      } catch (err) {
        // A listener's bug must not end the stream.
        if (name !== 'error') this.emit('error', err);
      }
    }
  }

  private async run(): Promise<void> {
    let delay = this.options.reconnectDelayMs ?? 500;
    let serverRetry: number | null = null;
    for (let attempt = 0; !this.done; attempt++) {
      let error: unknown = null;
      try {
        const received = await this.connect((retry) => (serverRetry = retry));
        if (received) delay = this.options.reconnectDelayMs ?? 500;
      } catch (err) {
        if (this.done) return;
        if (err instanceof SpawnpointError && err.status < 500 && err.status !== 429) {
          this.done = true;
          this.emit('error', err);
          this.finish(err);
          return;
        }
        error = err;
        this.emit('error', err);
      }
      if (this.done) return;
      if (this.options.reconnect === false) { this.done = true; this.finish(error ?? undefined); return; }
      const wait = serverRetry ?? delay;
      this.emit('reconnecting', { attempt: attempt + 1, delayMs: wait, error });
      await new Promise((r) => setTimeout(r, wait));
      delay = Math.min(15_000, delay * 2);
    }
  }

  /** One connection; resolves when it ends (true if any event came), throws on refusal. */
  private async connect(onRetry: (ms: number) => void): Promise<boolean> {
    const headers = this.transport.headers('key', { ...this.headers, accept: 'text/event-stream', 'last-event-id': this.lastEventId ?? undefined });
    const res = await this.transport.fetchFn(this.transport.url(this.path), { headers, signal: this.abort.signal });
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      let body: { error: string; status: number };
      try { body = JSON.parse(text); } catch { body = { error: text || res.statusText, status: res.status }; }
      throw errorFor({ error: body.error ?? `HTTP ${res.status}`, status: res.status, ...('detail' in body ? { detail: (body as { detail: unknown }).detail } : {}) }, `GET ${this.path}`, null);
    }
    this.connections++;
    this.emit('open');
    let received = false;
    const parser = new SseParser((m) => {
      if (m.retry !== null) onRetry(m.retry);
      if (m.id !== null) this.lastEventId = m.id;
      let data: unknown = m.data;
      try { data = JSON.parse(m.data); } catch { /* text data */ }
      received = true;
      const event = { event: m.event as keyof M, data, id: m.id } as StreamEvent<M>;
      this.emit(m.event, data, event);
      this.emit('event', event);
      if (m.event === 'lobby_deleted' && this.endsOnDelete) this.close();
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch (err) {
      if (this.done) return received;
      throw err;
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    return received;
  }
}
