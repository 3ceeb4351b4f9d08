// Requests that fetch cannot send (malformed HTTP, oversized heads), over a plain socket, and the
// answers Node's parser or the router give them: each must be the Error body with the right status.
import net from 'node:net';

export interface RawCase { label: string; data: Buffer; status: number[] }
export interface RawAnswer { status: number; body: unknown; text: string }

export function rawRequest(port: number, data: Buffer, timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(data));
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const bodyText = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: unknown = bodyText;
      try { body = JSON.parse(bodyText); } catch { /* judged by the caller */ }
      resolve({ status, body, text });
    };
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('close', done);
    socket.on('error', () => undefined);
  });
}

const head = (line: string, headers: string[] = []) => Buffer.from(`${line}\r\nHost: 127.0.0.1\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n`, 'latin1');

/** Malformed or oversized requests against `path` (a GET route of the listener); `badParam` a request line with a malformed path parameter. */
export function rawCases(path: string, badParam: string): RawCase[] {
  const sep = path.includes('?') ? '&' : '?';
  return [
    { label: 'URL of 10 KiB', data: head(`GET ${path}${sep}q=${'a'.repeat(10_000)} HTTP/1.1`), status: [414] },
    { label: 'URL of 20 KiB', data: head(`GET ${path}${sep}q=${'a'.repeat(20_000)} HTTP/1.1`), status: [414] },
    { label: 'URL of 100 KiB', data: head(`GET ${path}${sep}q=${'a'.repeat(100_000)} HTTP/1.1`), status: [414] },
    { label: 'headers of 20 KiB', data: head(`GET ${path} HTTP/1.1`, [`x-big: ${'b'.repeat(20_000)}`]), status: [431] },
    { label: 'many headers', data: head(`GET ${path} HTTP/1.1`, Array.from({ length: 3000 }, (_, i) => `x-h${i}: v`)), status: [431] },
    { label: 'NUL in a header value', data: head(`GET ${path} HTTP/1.1`, ['x-player-id: a\u0000b']), status: [400] },
    { label: 'header without a colon', data: head(`GET ${path} HTTP/1.1`, ['not a header']), status: [400] },
    { label: 'NUL in the request line', data: head(`GET ${path}\u0000 HTTP/1.1`), status: [400] },
    { label: 'not HTTP', data: Buffer.from('HELLO\r\n\r\n'), status: [400] },
    { label: 'unknown HTTP version', data: head(`GET ${path} HTTP/7.1`), status: [400, 505] },
    { label: 'two Content-Length values', data: head(`POST ${path} HTTP/1.1`, ['Content-Length: 2', 'Content-Length: 3']), status: [400] },
    { label: 'Content-Length and chunked', data: head(`POST ${path} HTTP/1.1`, ['Content-Length: 2', 'Transfer-Encoding: chunked']), status: [400] },
    { label: 'broken chunked body', data: Buffer.concat([head(`POST ${path} HTTP/1.1`, ['Transfer-Encoding: chunked', 'Content-Type: application/json']), Buffer.from('zz\r\n{}\r\n0\r\n\r\n')]), status: [400] },
    { label: 'malformed percent-encoding in a path parameter', data: head(`${badParam} HTTP/1.1`), status: [400] },
  ];
}

/** What is wrong with a raw answer (empty when it is the Error body with an expected status). */
export function judgeRaw(c: RawCase, a: RawAnswer): string[] {
  const out: string[] = [];
  if (!c.status.includes(a.status)) out.push(`raw [${c.label}]: expected ${c.status.join('|')}, got ${a.status}: ${a.text.slice(0, 200)}`);
  const body = a.body as Record<string, unknown>;
  if (!body || typeof body !== 'object' || typeof body.error !== 'string' || body.status !== a.status || Object.keys(body).some((k) => !['error', 'status', 'detail'].includes(k))) {
    out.push(`raw [${c.label}]: not the Error body: ${a.text.slice(0, 300)}`);
  }
  return out;
}
