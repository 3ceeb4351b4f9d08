// Traces end to end (issue 15): the distributed platform exports OTLP/HTTP to a receiver in this test
// (a real node:http server), in short batches. New traces are not sampled (SPAWNPOINT_TRACE_SAMPLE_RATIO=0),
// so what arrives is exactly the requests sent with a sampled traceparent, each one tree across services:
//  - a server start: gateway → bus → servers → event store → projection (and its SQL) → runtime spawn, and
//    the outbox relay's publish;
//  - a lobby update reaching an open event stream: gateway → lobbies → broadcast → the gateway's delivery
//    → the write to the stream;
//  - a settings change consumed by four services (fan-out): one producer, a consumer span in each, linked.
import { randomBytes } from 'node:crypto';
import { client, eventually } from '../support/http';
import { ancestors, OTLP_KIND, OtlpReceiver, ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver';
import { Platform, startDistributed } from '../support/processes';
import { lobbyEvents } from '../support/sse';
import { uploadSample } from './server-lifecycle';

jest.setTimeout(180_000);

const newTrace = () => ({ traceId: randomBytes(16).toString('hex'), callerSpanId: randomBytes(8).toString('hex') });
const traceparent = (t: { traceId: string; callerSpanId: string }, sampled = true) => `00-${t.traceId}-${t.callerSpanId}-${sampled ? '01' : '00'}`;

/**
 * The trace once it holds spans matching every name given and forms one tree: exactly one span (the
 * gateway's request) has the caller's span as parent, every other one's parent is in the trace.
 */
async function completeTrace(receiver: OtlpReceiver, t: { traceId: string; callerSpanId: string }, names: RegExp[], what: string): Promise<ReceivedSpan[]> {
  return eventually(async () => receiver.inTrace(t.traceId), (spans) => {
    const ids = new Set(spans.map((s) => s.spanId));
    return names.every((n) => spans.some((s) => n.test(s.name)))
      && spans.filter((s) => s.parentSpanId === t.callerSpanId).length === 1
      && spans.every((s) => s.parentSpanId === t.callerSpanId || ids.has(s.parentSpanId));
  }, 30_000, what);
}

/** The span of `service` named `name` (of `kind`), or a failure listing what the trace holds. */
function one(spans: ReceivedSpan[], service: string, name: string | RegExp, kind?: number): ReceivedSpan {
  const found = spans.find((s) => s.service === `spawnpoint-${service}` && (typeof name === 'string' ? s.name === name : name.test(s.name)) && (kind === undefined || s.kind === kind));
  if (!found) throw new Error(`no span ${String(name)} (kind ${kind}) of spawnpoint-${service}; the trace holds: ${spans.map((s) => `${s.service} ${s.name} (${s.kind})`).join(', ')}`);
  return found;
}
const under = (span: ReceivedSpan, ancestor: ReceivedSpan, spans: ReceivedSpan[]) =>
  expect(ancestors(span, spans).map((a) => a.spanId)).toContain(ancestor.spanId);

describe('traces (distributed, OTLP/HTTP to a receiver in the test)', () => {
  let receiver: OtlpReceiver;
  let p: Platform;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    p = await startDistributed('19800-19899', {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200', SPAWNPOINT_TRACE_SAMPLE_RATIO: '0',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e',
    });
    await uploadSample(client(p.baseUrl, p.serverKey));
  });
  afterAll(async () => {
    await p?.stop();
    await receiver?.close();
  });

  it('follows a server start from the HTTP request through the bus, the store and the projection to the spawn', async () => {
    const t = newTrace();
    const started = await client(p.baseUrl, p.serverKey).post('/v3/servers/start', { name: 'traced', region: 'us-east' }, { traceparent: traceparent(t) });
    expect(started.status).toBe(201);
    expect(started.headers.get('traceparent')).toMatch(new RegExp(`^00-${t.traceId}-[0-9a-f]{16}-01$`));
    const spans = await completeTrace(receiver, t, [/^HTTP POST/, /^bus servers\.start$/, /^eventstore append$/, /^projection servers/, /^runtime spawn$/, /^publish events\.server\./], 'the server start\'s trace');

    const http = one(spans, 'gateway', 'HTTP POST /api/v3/servers/start', OTLP_KIND.server);
    expect(http.parentSpanId).toBe(t.callerSpanId);
    expect(http.attributes['http.response.status_code']).toBe(201);
    const request = one(spans, 'gateway', 'bus servers.start', OTLP_KIND.client);
    expect(request.parentSpanId).toBe(http.spanId);
    const handler = one(spans, 'servers', 'bus servers.start', OTLP_KIND.server);
    expect(handler.parentSpanId).toBe(request.spanId);
    const append = one(spans, 'servers', 'eventstore append', OTLP_KIND.client);
    under(append, handler, spans);
    expect(append.attributes).toMatchObject({ 'db.system': 'postgresql', 'db.operation': 'append', 'spawnpoint.stream_id': `server-${started.body.instance_id}` });
    const projection = one(spans, 'servers', /^projection servers/, OTLP_KIND.consumer);
    under(projection, handler, spans);
    expect(projection.attributes['spawnpoint.stream_id']).toBe(`server-${started.body.instance_id}`);
    const sql = spans.filter((s) => s.attributes['db.system'] === 'postgresql' && s.parentSpanId === projection.spanId);
    expect(sql.map((s) => s.attributes['db.operation'])).toContain('BEGIN');
    expect(sql.map((s) => String(s.attributes['db.statement'])).some((text) => /\bCOMMIT$/.test(text))).toBe(true); // the checkpoint's, with it
    const spawn = one(spans, 'servers', 'runtime spawn');
    under(spawn, handler, spans);
    expect(spawn.attributes['spawnpoint.server_id']).toBe(started.body.instance_id);
    expect(spawn.attributes['process.pid']).toEqual(expect.any(Number));
    const relayed = one(spans, 'servers', /^publish events\.server\.ServerStarted$/, OTLP_KIND.producer);
    under(relayed, handler, spans);
    // Other services asked along the way (the project's settings, the build) are in the same tree.
    expect([...new Set(spans.map((s) => s.service))]).toEqual(expect.arrayContaining(['spawnpoint-gateway', 'spawnpoint-servers', 'spawnpoint-builds']));
    for (const span of spans) {
      expect(span.resource).toMatchObject({ 'service.version': expect.any(String), 'service.instance.id': expect.any(String), 'deployment.environment.name': 'e2e' });
    }
    expect((await client(p.baseUrl, p.serverKey).delete(`/v3/servers/${started.body.instance_id}`)).status).toBe(200);
  });

  it('follows a lobby update from the HTTP request to the write on an open event stream', async () => {
    const api = client(p.baseUrl, p.clientKey);
    expect((await api.post('/v3/lobbies/default', { name: 'traced' }, { 'x-player-id': 'alice' })).status).toBe(201);
    const stream = lobbyEvents(p.baseUrl, p.clientKey, 'default', 'alice');
    try {
      await stream.next('connected');
      const t = newTrace();
      const updated = await api.patch('/v3/lobbies/default/me', { state: { ready: true } }, { 'x-player-id': 'alice', traceparent: traceparent(t) });
      expect(updated.status).toBe(200);
      await stream.next('lobby_updated', (e) => e.data.players?.some((pl: { state?: { ready?: boolean } }) => pl.state?.ready === true));
      const spans = await completeTrace(receiver, t, [/^HTTP PATCH/, /^publish lobbies\.updates$/, /^process lobbies\.updates$/, /^lobby stream write$/], 'the lobby update\'s trace');

      const http = one(spans, 'gateway', /^HTTP PATCH/, OTLP_KIND.server);
      expect(http.parentSpanId).toBe(t.callerSpanId);
      // One update may broadcast more than once in its trace: follow the stream write's own chain up by
      // parent ids, not whichever broadcast or delivery the receiver listed first.
      const write = one(spans, 'gateway', 'lobby stream write');
      const delivery = spans.find((s) => s.spanId === write.parentSpanId);
      expect(delivery).toMatchObject({ service: 'spawnpoint-gateway', name: 'process lobbies.updates', kind: OTLP_KIND.consumer });
      const broadcast = spans.find((s) => s.spanId === delivery!.parentSpanId);
      expect(broadcast).toMatchObject({ service: 'spawnpoint-lobbies', name: 'publish lobbies.updates', kind: OTLP_KIND.producer });
      under(broadcast!, http, spans);
      expect(delivery!.links).toEqual([{ traceId: t.traceId, spanId: broadcast!.spanId }]);
      expect(write.attributes).toMatchObject({ 'spawnpoint.player_id': 'alice', 'spawnpoint.sse.event': 'lobby_updated' });
    } finally {
      stream.close();
    }
  });

  it('shows a settings change consumed by several services as one producer with a linked consumer span in each', async () => {
    const t = newTrace();
    const res = await client(p.baseUrl, p.serverKey).post('/v3/projects/settings', { lobby_configs: [{ name: 'traced', maxPlayers: 4 }] }, { traceparent: traceparent(t) });
    expect(res.status).toBe(200);
    const spans = await eventually(async () => completeTrace(receiver, t, [/^publish events\.project\.ProjectSettingsUpdated$/], 'the settings change\'s trace'),
      (s) => s.filter((x) => x.kind === OTLP_KIND.consumer && /^process events\.project\./.test(x.name)).length >= 4, 30_000, 'four consumers');
    const producer = one(spans, 'projects', 'publish events.project.ProjectSettingsUpdated', OTLP_KIND.producer);
    const consumers = spans.filter((s) => s.kind === OTLP_KIND.consumer && s.name === 'process events.project.ProjectSettingsUpdated');
    expect(consumers.map((c) => c.service).sort()).toEqual(['spawnpoint-backfill', 'spawnpoint-lobbies', 'spawnpoint-matchmaking', 'spawnpoint-servers']);
    for (const consumer of consumers) {
      expect(consumer.parentSpanId).toBe(producer.spanId);
      expect(consumer.links).toEqual([{ traceId: t.traceId, spanId: producer.spanId }]);
    }
  });

  it('records nothing of a request whose caller did not sample it (nor of new traces, at ratio 0)', async () => {
    const t = newTrace();
    const res = await client(p.baseUrl, p.serverKey).get('/v3/servers', { traceparent: traceparent(t, false) });
    expect(res.status).toBe(200);
    expect(res.headers.get('traceparent')).toMatch(new RegExp(`^00-${t.traceId}-[0-9a-f]{16}-00$`));
    const fresh = await client(p.baseUrl, p.serverKey).get('/v3/servers');
    const freshTrace = fresh.headers.get('traceparent')!.split('-')[1];
    await new Promise((r) => setTimeout(r, 1500)); // several export batches
    expect(receiver.inTrace(t.traceId)).toEqual([]);
    expect(receiver.inTrace(freshTrace)).toEqual([]);
  });
});
