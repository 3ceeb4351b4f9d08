// The legacy lobby event stream read the way the hosted service's Unity SDK reads it (LobbySseManager):
// lines split on "\n", `event: <name>` and `data: <json>` (a space after the colon), an event dispatched
// at the blank line when it has a name and data; anything else (comments, `id:`) skipped.
export interface LegacySseEvent { event: string; data: any }

export interface LegacyEventStream {
  status: number;
  events: LegacySseEvent[];
  /** The raw text received, to check the framing itself. */
  text(): string;
  next(event: string, where?: (e: LegacySseEvent) => boolean, timeoutMs?: number): Promise<LegacySseEvent>;
  /** Resolves when the server has ended the stream. */
  ended(timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function legacyLobbyEvents(legacyUrl: string, apiKey: string, lobbyId: string, playerId: string, config: string): Promise<LegacyEventStream> {
  const abort = new AbortController();
  const url = `${legacyUrl}/lobbies-sse/${lobbyId}/events?player-id=${encodeURIComponent(playerId)}&lobby-config=${encodeURIComponent(config)}`;
  const res = await fetch(url, { headers: { 'api-key': apiKey, accept: 'text/event-stream', 'cache-control': 'no-cache' }, signal: abort.signal });
  const events: LegacySseEvent[] = [];
  let raw = '';
  let done = false;
  const waiters: (() => void)[] = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  if (res.status === 200 && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      let name = '';
      let data = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          const text = decoder.decode(chunk, { stream: true });
          raw += text;
          buffer += text;
          const lines = buffer.split('\n');
          buffer = lines.pop() ?? '';
          for (const l of lines.map((x) => x.replace(/\r$/, ''))) {
            if (l === '') {
              if (name && data) events.push({ event: name, data: JSON.parse(data) });
              name = '';
              data = '';
              notify();
            } else if (l.startsWith('event: ')) name = l.slice(7);
            else if (l.startsWith('data: ')) data += (data ? '\n' : '') + l.slice(6);
          }
        }
      } catch { /* aborted */ }
      done = true;
      notify();
    })();
  } else {
    done = true;
  }
  const until = (ok: () => boolean, timeoutMs: number, what: string) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(events.map((e) => e.event))}`)), timeoutMs);
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
    status: res.status,
    events,
    text: () => raw,
    async next(event, where = () => true, timeoutMs = 15_000) {
      let found: LegacySseEvent | undefined;
      await until(() => {
        const i = events.findIndex((e, k) => k >= seen && e.event === event && where(e));
        if (i < 0) return false;
        found = events[i];
        seen = i + 1;
        return true;
      }, timeoutMs, event);
      return found!;
    },
    ended: (timeoutMs = 15_000) => until(() => done, timeoutMs, 'the end of the stream'),
    close: () => abort.abort(),
  };
}
