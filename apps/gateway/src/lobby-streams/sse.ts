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
