// A server-sent events parser over a fetch body (text/event-stream, WHATWG rules): works in Node 18+ and
// browsers alike, and unlike the browser's EventSource it can send the api-key and x-player-id headers.
export interface SseMessage { event: string; data: string; id: string | null; retry: number | null }

/** Feeds decoded text in, calls `emit` per complete message. */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;
  private retry: number | null = null;

  constructor(private readonly emit: (m: SseMessage) => void) {}

  push(text: string): void {
    this.buffer += text;
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      const width = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (width === 1 && this.buffer[nl] === '\r' && nl === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(nl + width);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length) this.emit({ event: this.event || 'message', data: this.data.join('\n'), id: this.id, retry: this.retry });
      this.event = '';
      this.data = [];
      this.retry = null;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}
