// A real SSE client (npm `eventsource`) on a lobby event stream, collecting what it receives.
import { EventSource } from 'eventsource';

export interface SseEvent { type: string; id: string; data: any }
export const LOBBY_EVENT_TYPES = ['connected', 'lobby_updated', 'lobby_deleted', 'queue_stats', 'match_found', 'ping'];

export interface LobbyEventClient {
  events: SseEvent[];
  errors: number;
  source: EventSource;
  next(type: string, where?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the server has ended the stream (the client saw an error after opening). */
  ended(timeoutMs?: number): Promise<void>;
  close(): void;
}

export function lobbyEvents(baseUrl: string, apiKey: string, config: string, playerId: string, options: { lastEventId?: string; headers?: Record<string, string> } = {}): LobbyEventClient {
  const events: SseEvent[] = [];
  let errors = 0;
  const waiters: (() => void)[] = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const source = new EventSource(`${baseUrl}/v3/lobbies/${config}/me/events`, {
    fetch: (input, init) => fetch(input, {
      ...init,
      headers: {
        ...(init?.headers as Record<string, string>), 'api-key': apiKey, 'x-player-id': playerId, ...options.headers,
        ...(options.lastEventId && !(init?.headers as Record<string, string>)?.['Last-Event-ID'] ? { 'last-event-id': options.lastEventId } : {}),
      },
    }),
  });
  for (const type of LOBBY_EVENT_TYPES) {
    source.addEventListener(type, (e) => {
      events.push({ type, id: e.lastEventId, data: JSON.parse(e.data) });
      notify();
    });
  }
  source.onerror = () => {
    errors++;
    notify();
  };
  const until = (ok: () => boolean, timeoutMs: number, what: string) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map((e) => e.type))}`)), timeoutMs);
    const check = () => {
      if (ok()) {
        clearTimeout(timer);
        resolve();
      } else {
        waiters.push(check);
      }
    };
    check();
  });
  let seen = 0;
  return {
    events,
    get errors() { return errors; },
    source,
    async next(type, where = () => true, timeoutMs = 15_000) {
      let found: SseEvent | undefined;
      await until(() => {
        const i = events.findIndex((e, n) => n >= seen && e.type === type && where(e));
        if (i < 0) return false;
        found = events[i];
        seen = i + 1;
        return true;
      }, timeoutMs, type);
      return found!;
    },
    async ended(timeoutMs = 15_000) {
      await until(() => errors > 0, timeoutMs, 'the end of the stream');
    },
    close: () => source.close(),
  };
}
