// The process registry as the ops server serves it: runtime metrics, build info, bus requests served
// through `serve` on a real in-process bus, HTTP observations, appends, and scrape-time gauges.
import { InProcessBus, RemoteError } from '@spawnpoint/messaging';
import type { EventStore } from '@spawnpoint/eventstore';
import { captureLogs } from '../../../logging/src/testing';
import { idLikeLabels, parsePrometheus, scrape, sum } from '../../../../test/support/prometheus';
import { serve } from '../commands/serve';
import { HealthServer, startHealthServer } from '../nest/health-server';
import { observeHttpRequest } from './http-metrics';
import { subjectLabel } from './bus-metrics';
import { meteredEventStore } from './event-store-metrics';
import { enableMetrics } from './registry';
import { addGaugeSource } from './scrape-gauge';
import { countPoolClaim, observeColdStart, observePoolClaim } from './hosting-metrics';
import { observeTimeToMatch } from './matchmaking-metrics';
import { consumerGauges, registerGauges } from './service-metrics';

describe('the process metrics registry on the ops server', () => {
  let ops: HealthServer;
  let bus: InProcessBus;
  beforeAll(async () => {
    enableMetrics('test-service', '1.2.3');
    ops = await startHealthServer('test-service', 0, '127.0.0.1');
    bus = new InProcessBus();
  });
  afterAll(async () => {
    await bus.close();
    await ops.close();
  });

  it('serves runtime metrics and build info in the text format', async () => {
    const e = await scrape(ops.port);
    expect(e.types.nodejs_eventloop_lag_p99_seconds).toBe('gauge');
    expect(e.types.process_resident_memory_bytes).toBe('gauge');
    expect(sum(e, 'spawnpoint_build_info', { service: 'test-service', version: '1.2.3' })).toBe(1);
  });

  it('counts bus requests per subject and outcome, with a latency histogram', async () => {
    await serve(bus, {
      'tests.echo': (payload) => payload,
      'tests.refuse': () => { throw new RemoteError({ error: 'No', status: 404 }); },
      'tests.break': () => { throw new Error('boom'); },
    });
    await bus.request('tests.echo', { a: 1 });
    await bus.request('tests.echo', { a: 2 });
    await expect(bus.request('tests.refuse', {})).rejects.toThrow('No');
    const logs = captureLogs();
    await expect(bus.request('tests.break', { projectId: 'p1' })).rejects.toThrow('Internal error');
    logs.restore();
    // The cause stays in the service's log, with the subject and the project.
    expect(logs.records().filter((r) => r.level === 'error')).toEqual([expect.objectContaining({ msg: 'bus: handler for tests.break failed', subject: 'tests.break', project_id: 'p1', err: expect.objectContaining({ message: 'boom' }) })]);
    const e = await scrape(ops.port);
    expect(sum(e, 'spawnpoint_bus_requests_total', { subject: 'tests.echo', outcome: 'ok' })).toBe(2);
    expect(sum(e, 'spawnpoint_bus_requests_total', { subject: 'tests.refuse', outcome: 'rejected' })).toBe(1);
    expect(sum(e, 'spawnpoint_bus_requests_total', { subject: 'tests.break', outcome: 'error' })).toBe(1);
    expect(e.types.spawnpoint_bus_request_duration_seconds).toBe('histogram');
    expect(sum(e, 'spawnpoint_bus_request_duration_seconds_count', { subject: 'tests.echo' })).toBe(2);
    expect(sum(e, 'spawnpoint_bus_request_duration_seconds_bucket', { subject: 'tests.echo', le: '+Inf' })).toBe(2);
  });

  it('never lets an id into a subject label', () => {
    expect(subjectLabel('servers.get')).toBe('servers.get');
    expect(subjectLabel('servers.3f2b8a4e-0c1d-4e5f-9a8b-7c6d5e4f3a2b')).toBe('other');
    expect(subjectLabel('_INBOX.abc123.def')).toBe('other');
    expect(subjectLabel('lobbies.updates.0123456789abcdef')).toBe('other');
  });

  it('records HTTP requests by route template, unmatched ones as `unmatched`', async () => {
    observeHttpRequest('GET', '/api/v3/servers/:instance_id', 200, 0.004);
    observeHttpRequest('GET', '/api/v3/servers/:instance_id', 404, 0.002);
    observeHttpRequest('GET', undefined, 404, 0.001);
    const e = await scrape(ops.port);
    expect(sum(e, 'spawnpoint_http_requests_total', { method: 'GET', route: '/api/v3/servers/:instance_id', status: '200' })).toBe(1);
    expect(sum(e, 'spawnpoint_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(sum(e, 'spawnpoint_http_request_duration_seconds_count', { method: 'GET', route: '/api/v3/servers/:instance_id' })).toBe(2);
    expect(sum(e, 'spawnpoint_http_request_duration_seconds_sum', { method: 'GET', route: '/api/v3/servers/:instance_id' })).toBeCloseTo(0.006);
  });

  it('times and counts appends through the metered store, passing everything else through', async () => {
    const appended: number[] = [];
    // A stand-in store: only its append is measured, and the proxy must keep `this` for the rest.
    class Store { #head = 7n; async appendToStream(_s: string, events: unknown[]) { appended.push(events.length); return { nextRevision: 0 }; } async headPosition() { return this.#head; } }
    const store = meteredEventStore(new Store() as unknown as EventStore);
    const before = sum(await scrape(ops.port), 'spawnpoint_eventstore_appended_events_total');
    await store.appendToStream('server-x', [{ type: 'A', data: {} }, { type: 'B', data: {} }], 'any');
    expect(await store.headPosition()).toBe(7n);
    const e = await scrape(ops.port);
    expect(sum(e, 'spawnpoint_eventstore_appended_events_total') - before).toBe(2);
    expect(sum(e, 'spawnpoint_eventstore_append_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(appended).toEqual([2]);
  });

  it('computes gauges at scrape time and leaves out a source that fails', async () => {
    let ready = 3;
    const remove = addGaugeSource('spawnpoint_test_pool', 'test', ['region'], async () => [{ labels: { region: 'eu-west' }, value: ready }]);
    const removeBroken = addGaugeSource('spawnpoint_test_pool', 'test', ['region'], async () => { throw new Error('db down'); });
    expect(sum(await scrape(ops.port), 'spawnpoint_test_pool', { region: 'eu-west' })).toBe(3);
    ready = 5;
    expect(sum(await scrape(ops.port), 'spawnpoint_test_pool', { region: 'eu-west' })).toBe(5);
    remove();
    removeBroken();
    expect((await scrape(ops.port)).samples.filter((s) => s.name === 'spawnpoint_test_pool')).toEqual([]);
  });

  it('computes the figures a process holds at scrape time: game machines, pool targets, open streams (the services register their own)', async () => {
    const running = ['a', 'b'];
    let streams = 3;
    const minReady = new Map([['us-east', 4], ['eu-west', 1]]);
    // The shapes of the servers' and the gateway's own gauges (apps/servers/src/server-gauges.ts, …/lobby-stream-gauges.ts).
    const remove = registerGauges([
      { name: 'spawnpoint_game_machines', help: 'machines', labelNames: ['kind'], source: async () => [{ labels: { kind: 'pod' }, value: running.length }] },
      { name: 'spawnpoint_pool_min_ready', help: 'targets', labelNames: ['region'], source: async () => [...minReady].map(([region, value]) => ({ labels: { region }, value })) },
      { name: 'spawnpoint_lobby_event_streams', help: 'streams', labelNames: [], source: async () => [{ labels: {}, value: streams }] },
    ]);
    let e = await scrape(ops.port);
    expect(sum(e, 'spawnpoint_game_machines', { kind: 'pod' })).toBe(2);
    expect(sum(e, 'spawnpoint_pool_min_ready', { region: 'us-east' })).toBe(4);
    expect(sum(e, 'spawnpoint_lobby_event_streams')).toBe(3);
    running.pop();
    streams = 0;
    e = await scrape(ops.port);
    expect(sum(e, 'spawnpoint_game_machines', { kind: 'pod' })).toBe(1);
    expect(e.samples.find((s) => s.name === 'spawnpoint_lobby_event_streams')?.value).toBe(0);
    remove();
    expect((await scrape(ops.port)).samples.filter((s) => s.name === 'spawnpoint_game_machines')).toEqual([]);
  });

  it('records cold starts, pool claims and time to match in their histograms', async () => {
    observeColdStart('us-east', 1.5);
    countPoolClaim('us-east', 'claimed');
    observePoolClaim('us-east', 0.004);
    countPoolClaim('us-east', 'empty');
    observeTimeToMatch('duel', 7);
    const e = await scrape(ops.port);
    expect(sum(e, 'spawnpoint_server_cold_start_seconds_bucket', { region: 'us-east', le: '2' })).toBe(1);
    expect(sum(e, 'spawnpoint_server_cold_start_seconds_bucket', { region: 'us-east', le: '1' })).toBe(0);
    expect(sum(e, 'spawnpoint_pool_claims_total', { region: 'us-east', outcome: 'claimed' })).toBe(1);
    expect(sum(e, 'spawnpoint_pool_claims_total', { region: 'us-east', outcome: 'empty' })).toBe(1);
    expect(sum(e, 'spawnpoint_pool_claim_duration_seconds_bucket', { region: 'us-east', le: '0.005' })).toBe(1);
    expect(sum(e, 'spawnpoint_matchmaking_time_to_match_seconds_sum', { mode: 'duel' })).toBe(7);
    expect(e.types.spawnpoint_matchmaking_time_to_match_seconds).toBe('histogram');
  });

  it('shows each dependency of the readiness checks as up or down at scrape time, and no bus lag in process', async () => {
    ops.ready({ bus: async () => undefined, database: async () => { throw new Error('connection refused'); }, other: async () => undefined });
    const e = await scrape(ops.port);
    expect(sum(e, 'spawnpoint_dependency_up', { dependency: 'nats' })).toBe(1);
    expect(sum(e, 'spawnpoint_dependency_up', { dependency: 'database' })).toBe(0);
    // Only the named dependencies: a check of something else has no series.
    expect(e.samples.filter((s) => s.name === 'spawnpoint_dependency_up').map((s) => s.labels.dependency).sort()).toEqual(['database', 'nats']);
    // The in-process bus keeps no backlog (publish waits for every consumer): no consumer lag gauge.
    expect(consumerGauges(bus)).toEqual([]);
  });

  it('has no id-like label values', async () => {
    expect(idLikeLabels(await scrape(ops.port))).toEqual([]);
    expect(idLikeLabels(parsePrometheus('x{id="3f2b8a4e-0c1d-4e5f-9a8b-7c6d5e4f3a2b"} 1\ny{k="pf_abc"} 1\n'))).toHaveLength(2);
  });
});
