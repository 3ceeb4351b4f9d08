/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// The GameRuntime contract against a real cluster, when KUBECONFIG is set (docs/kubernetes.md says how to
// get one with kind or k3s). Without a cluster, one test proves the client's real request path.
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { REGIONS } from '@spawnpoint/domain';
import type { GameRuntime, MachineSpec } from '../runtime';
import { describeRuntimeContract } from '../testing/runtime-contract';
import { SAMPLE_GAME_SCRIPT } from '../testing/sample-game';
import { kubernetesClient } from './client';
import { KubernetesRuntime } from './kubernetes-runtime';
import { parseKubernetesSettings } from './settings';
import { machineSpec, TCP_GAME } from './testing/fixtures';

if (process.env.KUBECONFIG) {
  // Image pulls and pod start-up take seconds, metrics-server samples every 15 s.
  jest.setTimeout(180_000);
  describeClusterContract();
} else {
  describe('KubernetesRuntime without a cluster (set KUBECONFIG to run the contract)', () => {
    it('sends its requests for real: start() rejects with the connection error, the watch reports it', async () => {
      const kubeConfig = new (kubernetesClient().KubeConfig)();
      kubeConfig.loadFromClusterAndUser({ name: 'nowhere', server: 'https://127.0.0.1:1', skipTLSVerify: false }, { name: 'nobody', token: 'token' });
      const settings = parseKubernetesSettings({ regions: { 'us-east': { namespace: 'games', tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [7000, 7099] } } });
      const warnings: string[] = [];
      const runtime = new KubernetesRuntime(settings, { kubeConfig, warn: (m) => warnings.push(m), backoffMs: [50, 200] });
      try {
        const ports = await runtime.allocatePorts('nowhere-1', [TCP_GAME]);
        await expect(runtime.start({ ...machineSpec({ serverId: 'nowhere-1', region: 'us-east', build: 'image', ports: [] }), ports }))
          .rejects.toThrow(/could not create pod sp-nowhere-1 in namespace games \(region us-east\): .*connect ECONNREFUSED 127\.0\.0\.1:1/);
        expect(runtime.running()).toEqual([]);
        await expect(runtime.synced(500)).rejects.toThrow(/could not list the game pods within 500 ms: region us-east \(namespace games\): .*ECONNREFUSED/);
        expect(warnings.some((w) => /region us-east: pods in namespace games: list failed, retrying in \d+ ms: .*ECONNREFUSED/.test(w))).toBe(true);
      } finally {
        await runtime.close();
      }
    });
  });
}

function describeClusterContract(): void {
  const env = process.env;
  const namespace = env.SPAWNPOINT_K8S_TEST_NAMESPACE ?? 'spawnpoint-test';
  const image = env.SPAWNPOINT_K8S_TEST_IMAGE ?? 'node:20-alpine';
  const [low] = (env.SPAWNPOINT_K8S_TEST_PORTS ?? '27000-27999').split('-').map(Number);
  // The sample game (examples/game-server) runs from the node image as `node -e <source> -- server.js <args>`.
  const source = readFileSync(SAMPLE_GAME_SCRIPT, 'utf8').replace(/^#!.*\n/, '');
  let slice = 0;

  describeRuntimeContract('kubernetes', async ({ startupTimeoutMs }) => {
    const client = kubernetesClient();
    const kubeConfig = new client.KubeConfig();
    kubeConfig.loadFromDefault();
    if (env.SPAWNPOINT_K8S_TEST_CONTEXT) kubeConfig.setCurrentContext(env.SPAWNPOINT_K8S_TEST_CONTEXT);
    await ensureNamespace(kubeConfig, namespace);
    const host = env.SPAWNPOINT_K8S_TEST_HOST ?? (await nodeAddress(kubeConfig));
    // Each runtime its own region: they watch different pods, and hand out different ports.
    const n = slice++;
    const region = REGIONS[n];
    const settings = parseKubernetesSettings({
      regions: { [region]: { namespace, tcpHost: host, udpHost: host, portRange: [low + 100 * n, low + 100 * n + 99] } },
      ...(startupTimeoutMs ? { startupTimeoutMs } : {}),
      terminationGracePeriodSeconds: 10, pendingTimeoutMs: 300_000,
      logStreams: (env.SPAWNPOINT_K8S_TEST_LOG_STREAMS ?? 'split') as 'split' | 'combined',
    });
    const runtime = await KubernetesRuntime.connect(settings, { kubeConfig });
    const started = new Set<string>();
    return {
      runtime: sampleGameRuntime(runtime, source, started),
      makeSpec: (serverId, ports): MachineSpec => ({ serverId, projectId: 'contract', image, args: [], env: {}, ports, computeSize: 'small', region }),
      cleanup: async () => {
        const core = kubeConfig.makeApiClient(client.CoreV1Api);
        await Promise.all([...started].map((id) => core.deleteNamespacedPod({ name: `sp-${id}`, namespace, gracePeriodSeconds: 1 }).catch(() => undefined)));
      },
    };
  });
}

/**
 * The runtime, with the sample game's source prepended to every start's args, and metrics() waiting for
 * metrics-server's first sample of a new pod (it samples every 15 s) instead of answering nulls.
 */
function sampleGameRuntime(runtime: KubernetesRuntime, source: string, started: Set<string>): GameRuntime {
  return {
    kind: runtime.kind,
    allocatePorts: (serverId, ports) => runtime.allocatePorts(serverId, ports),
    releasePorts: (serverId) => runtime.releasePorts(serverId),
    start: (spec) => {
      started.add(spec.serverId);
      return runtime.start({ ...spec, args: ['-e', source, '--', 'server.js', ...spec.args] });
    },
    stop: (serverId, graceMs) => runtime.stop(serverId, graceMs),
    watch: (listener) => runtime.watch(listener),
    running: () => runtime.running(),
    recover: () => runtime.recover(),
    metrics: async (serverId) => {
      const until = Date.now() + 120_000;
      for (;;) {
        const metrics = await runtime.metrics(serverId);
        if (!metrics || metrics.cpu_percent !== null || Date.now() > until) return metrics;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    },
    close: () => runtime.close(),
  };
}

async function ensureNamespace(kubeConfig: KubeConfig, name: string): Promise<void> {
  const core = kubeConfig.makeApiClient(kubernetesClient().CoreV1Api);
  try {
    await core.readNamespace({ name });
  } catch (err) {
    if ((err as { code?: number }).code !== 404) throw err;
    // hostPorts need the privileged Pod Security level (ADR-0003).
    await core.createNamespace({ body: { metadata: { name, labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } } });
  }
}

/** Where the test reaches host ports: the first node's InternalIP (a kind node's container address). */
async function nodeAddress(kubeConfig: KubeConfig): Promise<string> {
  const nodes = await kubeConfig.makeApiClient(kubernetesClient().CoreV1Api).listNode();
  const address = nodes.items.flatMap((node) => node.status?.addresses ?? []).find((a) => a.type === 'InternalIP')?.address;
  if (!address) throw new Error('no node has an InternalIP; set SPAWNPOINT_K8S_TEST_HOST to where host ports are reachable');
  return address;
}
