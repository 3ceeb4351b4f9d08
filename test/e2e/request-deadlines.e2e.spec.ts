// Request deadlines (issue 36 item 12, ADR-0020), distributed over a NATS of the test's own: a start sent
// while NATS hangs is answered 503 (Retry-After, Error body) at the client's deadline (x-request-timeout-ms),
// and when NATS resumes, the start that waited in the gateway's socket reaches the servers service after
// its deadline and is dropped: no server is ever created. A start sent afterwards runs as usual.
import { client, eventually } from '../support/http';
import { Platform, startDistributed } from '../support/processes';
import { OwnNats, startOwnNats } from '../support/own-services';
import { uploadSample } from './server-lifecycle';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('request deadlines (distributed, a private NATS that hangs)', () => {
  jest.setTimeout(180_000);
  let nats: OwnNats;
  let p: Platform;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    nats = await startOwnNats();
    p = await startDistributed('31900-31949', { NATS_URL: nats.url });
    api = client(p.baseUrl, p.serverKey);
    await uploadSample(api);
  });
  afterAll(async () => {
    nats?.resume();
    await p?.stop();
    await nats?.remove();
  });

  it('a start sent while NATS hangs is 503 at its deadline and never applied when NATS comes back', async () => {
    expect((await api.get('/v3/servers')).body.servers).toEqual([]);
    await nats.pause();
    const sentAt = Date.now();
    const start = await api.post('/v3/servers/start', { name: 'late', region: 'eu-uk' }, { 'x-request-timeout-ms': '1500' });
    const tookMs = Date.now() - sentAt;
    expect(start.status).toBe(503);
    expect(start.body).toMatchObject({ error: expect.any(String), status: 503 });
    expect(Number(start.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // At the client's deadline, not at the gateway's 30 s start timeout.
    expect(tookMs).toBeLessThan(5_000);
    await sleep(2_000);
    nats.resume();
    // The start waited in the gateway's socket and now reaches the servers service, late: dropped.
    await eventually(async () => p.stdout!('servers'), (out) => out.includes('bus: dropped servers.start'), 20_000, 'the late start dropped');
    await sleep(1_000);
    const list = await eventually(() => api.get('/v3/servers'), (r) => r.status === 200, 20_000, 'servers list');
    expect(list.body.servers).toEqual([]);
  });

  it('afterwards a start runs as usual (with a deadline it meets)', async () => {
    const started = await eventually(() => api.post('/v3/servers/start', { name: 'on-time', region: 'eu-uk' }, { 'x-request-timeout-ms': '20000' }), (r) => r.status !== 503, 30_000, 'start');
    expect(started.status).toBe(201);
    expect((await api.delete(`/v3/servers/${started.body.instance_id}`)).status).toBeLessThan(300);
  });

  it('a bad x-request-timeout-ms is 422 at its header', async () => {
    const bad = await api.post('/v3/servers/start', { name: 'bad' }, { 'x-request-timeout-ms': 'soon' });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ status: 422, detail: [{ loc: ['header', 'x-request-timeout-ms'] }] });
  });
});
