/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// A CLIENT span per Kubernetes API call made inside a trace, through the real client over HTTP against
// FakeApiServer: the operation, namespace, pod and cluster; a failed call carries the API's status.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { installTracing, type TracingHarness } from '../../../messaging/src/testing/tracing-harness';
import { KubernetesRuntime } from './kubernetes-runtime';
import { parseKubernetesSettings } from './settings';
import { FakeApiServer } from './testing/fake-api-server';
import { machineSpec, UDP_GAME } from './testing/fixtures';

describe('KubernetesRuntime spans', () => {
  let api: FakeApiServer;
  let runtime: KubernetesRuntime;
  let tracing: TracingHarness;

  beforeEach(async () => {
    api = await new FakeApiServer().start();
    runtime = new KubernetesRuntime(parseKubernetesSettings({
      regions: { 'eu-west': { namespace: 'games', tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [30000, 30099] } },
    }), { kubeConfig: api.kubeConfig(), warn: () => undefined, backoffMs: [20, 100] });
    await runtime.synced(2000);
    tracing = installTracing();
  });
  afterEach(async () => {
    await tracing.dispose();
    await runtime.close();
    await api.close();
  });

  const inTrace = (fn: () => Promise<unknown>) => trace.getTracer('test').startActiveSpan('request', async (span) => {
    try {
      await fn();
      return span.spanContext().spanId;
    } finally {
      span.end();
    }
  });
  const k8s = () => tracing.exporter.getFinishedSpans().filter((s) => s.name.startsWith('k8s '));

  it('records the pod\'s creation and a metrics read as CLIENT spans of the request', async () => {
    const parent = await inTrace(async () => {
      const ports = await runtime.allocatePorts('game-1', [UDP_GAME]);
      await runtime.start({ ...machineSpec({ serverId: 'game-1', ports: [], build: 'image' }), ports });
      await runtime.metrics('game-1');
    });
    const [create, metrics] = k8s();
    expect(create.name).toBe('k8s createNamespacedPod');
    expect(create.kind).toBe(SpanKind.CLIENT);
    expect(create.parentSpanContext?.spanId).toBe(parent);
    expect(create.attributes).toMatchObject({
      'k8s.operation': 'createNamespacedPod', 'k8s.namespace.name': 'games', 'spawnpoint.region': 'eu-west', 'server.address': '127.0.0.1',
    });
    // metrics-server has no sample for the pod: a 404, which the runtime shrugs off; the span shows it.
    expect(metrics.name).toBe('k8s getNamespacedCustomObject');
    expect(metrics.attributes).toMatchObject({ 'k8s.resource.name': 'sp-game-1', 'http.response.status_code': 404 });
    expect(metrics.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('opens none outside a trace (the pod watch, background deletes)', async () => {
    const ports = await runtime.allocatePorts('game-2', [UDP_GAME]);
    await runtime.start({ ...machineSpec({ serverId: 'game-2', ports: [], build: 'image' }), ports });
    await runtime.stop('game-2', 1000);
    expect(k8s()).toEqual([]);
  });
});
