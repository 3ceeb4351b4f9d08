// The event-stream parser follows the WHATWG rules whatever the chunking: CRLF, CR or LF line ends, comments,
// multi-line data, ids kept for the reconnect, `retry:`, and a message only at its blank line.
import { SseMessage, SseParser } from './sse';

function parse(chunks: string[]): SseMessage[] {
  const out: SseMessage[] = [];
  const p = new SseParser((m) => out.push(m));
  for (const c of chunks) p.push(c);
  return out;
}

describe('SseParser', () => {
  const stream = ': hello\nretry: 3000\nevent: connected\nid: l1:1\ndata: {"a":1}\n\nevent: lobby_updated\r\nid: l1:2\r\ndata: line one\r\ndata: line two\r\n\r\ndata: plain\r\r\n';

  it('reads events, ids, retry and multi-line data', () => {
    expect(parse([stream])).toEqual([
      { event: 'connected', data: '{"a":1}', id: 'l1:1', retry: 3000 },
      { event: 'lobby_updated', data: 'line one\nline two', id: 'l1:2', retry: null },
      { event: 'message', data: 'plain', id: 'l1:2', retry: null },
    ]);
  });

  it('gives the same messages however the bytes are split, even inside a CRLF', () => {
    const whole = parse([stream]);
    for (let size = 1; size <= 7; size++) {
      const chunks = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.slice(i, i + size));
      expect(parse(chunks)).toEqual(whole);
    }
  });

  it('emits nothing before the blank line, and ignores an event with no data', () => {
    expect(parse(['event: x\ndata: 1\n'])).toEqual([]);
    expect(parse(['event: ping\n\n'])).toEqual([]);
    expect(parse(['data\n\n'])).toEqual([{ event: 'message', data: '', id: null, retry: null }]);
  });
});
