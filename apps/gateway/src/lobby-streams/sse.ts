// Server-sent event framing (https://html.spec.whatwg.org/multipage/server-sent-events.html).
// `data` is JSON on one line, so one `data:` field suffices.
export function sseFrame(id: string, event: string, data: unknown): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  // Proxies (nginx) must not buffer the stream.
  'x-accel-buffering': 'no',
  // A browser EventSource from a game page on another origin.
  'access-control-allow-origin': '*',
};

/** `<lobbyId>:<revision>`, as sent in `id:` and read back from Last-Event-ID. */
export const eventId = (lobbyId: string, revision: number) => `${lobbyId}:${revision}`;

/** A client with this much unread is dropped (it reconnects with Last-Event-ID and is replayed). */
const MAX_BUFFERED_BYTES = 1024 * 1024;
/**
 * ... or with this many events of the size just written, when that is more: one lobby view can be over
 * 1 MiB by itself (100 players with 16 KiB of state each), and its stream must hold.
 */
const MAX_BUFFERED_EVENTS = 4;

/** Whether the stream's client is too far behind, after a frame of `frameLength` was written to it. */
export const isBehind = (res: { writableLength: number }, frameLength: number): boolean =>
  res.writableLength > Math.max(MAX_BUFFERED_BYTES, MAX_BUFFERED_EVENTS * frameLength);
