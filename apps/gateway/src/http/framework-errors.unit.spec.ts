import { checkUrl, clientErrorBody, MAX_URL_BYTES } from './framework-errors';

const overflow = (packet: string) => Object.assign(new Error('Parse Error'), { code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from(packet) });

describe('framework errors', () => {
  it('tells a URI too long (414) from headers too large (431) by the request line in the packet', () => {
    expect(clientErrorBody(overflow(`GET /${'a'.repeat(70_000)}`))).toMatchObject({ status: 414 });
    expect(clientErrorBody(overflow(`GET /${'a'.repeat(MAX_URL_BYTES + 1)} HTTP/1.1\r\nHost: x\r\n`))).toMatchObject({ status: 414 });
    expect(clientErrorBody(overflow(`GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(20_000)}`))).toEqual({ error: 'Request header fields too large', status: 431 });
  });

  it('answers other parser errors 400 and timeouts 408, in the Error body', () => {
    expect(clientErrorBody(Object.assign(new Error('x'), { code: 'HPE_INVALID_HEADER_TOKEN' }))).toEqual({ error: 'Bad request: malformed HTTP', status: 400 });
    expect(clientErrorBody(Object.assign(new Error('x'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))).toEqual({ error: 'Request timeout', status: 408 });
  });
});

describe('checkUrl', () => {
  function run(url: string): { status?: number; body?: unknown; passed: boolean } {
    const out: { status?: number; body?: unknown; passed: boolean } = { passed: false };
    const reply = {
      status(code: number) { out.status = code; return reply; },
      type() { return reply; },
      send(body: unknown) { out.body = body; return reply; },
    };
    checkUrl({ raw: { url } } as never, reply as never, () => { out.passed = true; });
    return out;
  }

  it('passes ordinary URLs, with encoded UTF-8 and plus signs', () => {
    expect(run('/api/v3/servers?match_id=%C3%A9t%C3%A9+1&limit=5').passed).toBe(true);
  });

  it('refuses a URL over 8 KiB with 414 and an undecodable query with 400, in the Error body', () => {
    expect(run(`/api/v3/servers?q=${'a'.repeat(MAX_URL_BYTES)}`)).toMatchObject({ passed: false, status: 414, body: { status: 414 } });
    for (const q of ['%E0%A4%A', '%ED%A0%80', '%FF', '100%']) {
      expect(run(`/api/v3/servers?match_id=${q}`)).toMatchObject({ passed: false, status: 400, body: { error: expect.stringContaining('query string'), status: 400 } });
    }
  });
});
