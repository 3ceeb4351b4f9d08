// Checks a manifest the way the API server would: the OpenAPI schema (kubernetes-models), plus the rules
// the schema does not carry (name syntax, label syntax, port names, port ranges, volume references).
// kubernetes-models is ESM-only: specs using this run in native-modules-environment.js.
import { isLabelKey, isLabelValue } from '../settings';

type Model = new (data: object) => { validate(): void };
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
}

const nativeImport = (specifier: string): Promise<Record<string, unknown>> => {
  const load = (globalThis as { spawnpointNativeImport?: (s: string) => Promise<Record<string, unknown>> }).spawnpointNativeImport;
  if (!load) throw new Error('run this spec in libs/runtime/src/kubernetes/testing/native-modules-environment.js (see its header)');
  return load(specifier);
};

/** Throws with every problem found; resolves for a manifest the API server would accept. */
export async function validateManifest(manifest: Manifest): Promise<void> {
  const module = await nativeImport(`kubernetes-models/${manifest.apiVersion}`);
  const model = module[manifest.kind] as Model | undefined;
  if (!model) throw new Error(`kubernetes-models has no ${manifest.apiVersion} ${manifest.kind}`);
  new model(manifest).validate();
  const problems = apiServerProblems(manifest);
  if (problems.length > 0) throw new Error(`${manifest.kind} ${manifest.metadata?.name}: ${problems.join('; ')}`);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function apiServerProblems(manifest: Manifest): string[] {
  const problems: string[] = [];
  const meta = manifest.metadata ?? {};
  const name = meta.name ?? '';
  const nameOk = manifest.kind === 'Service' ? name.length <= 63 && DNS_1035.test(name) : name.length <= 253 && DNS_SUBDOMAIN.test(name);
  if (!nameOk) problems.push(`metadata.name ${JSON.stringify(name)} is not valid for a ${manifest.kind}`);
  if (meta.namespace !== undefined && !(meta.namespace.length <= 63 && DNS_LABEL.test(meta.namespace))) problems.push(`metadata.namespace ${meta.namespace} is not a DNS label`);
  checkLabels(meta.labels, 'metadata.labels', problems);
  for (const key of Object.keys(meta.annotations ?? {})) if (!isLabelKey(key)) problems.push(`annotation key ${key} is not a qualified name`);
  if (manifest.kind === 'Pod') checkPodSpec(manifest.spec, 'spec', problems);
  if (manifest.kind === 'Deployment' || manifest.kind === 'StatefulSet') {
    const template = manifest.spec?.template;
    checkLabels(template?.metadata?.labels, 'spec.template.metadata.labels', problems);
    // A StatefulSet's volumeClaimTemplates are volumes of its pods.
    const claims = (manifest.spec?.volumeClaimTemplates ?? []).map((c: { metadata?: { name?: string } }) => c.metadata?.name);
    checkPodSpec(template?.spec, 'spec.template.spec', problems, claims);
    for (const [key, value] of Object.entries<string>(manifest.spec?.selector?.matchLabels ?? {})) {
      if (template?.metadata?.labels?.[key] !== value) problems.push(`spec.selector.matchLabels.${key} does not match the template's labels`);
    }
  }
  return problems;
}

function checkLabels(labels: Record<string, string> | undefined, where: string, problems: string[]): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (!isLabelKey(key)) problems.push(`${where}: key ${key} is not a qualified name`);
    if (typeof value !== 'string' || !isLabelValue(value)) problems.push(`${where}.${key}: value ${JSON.stringify(value)} is not a label value`);
  }
}

function checkPodSpec(spec: any, where: string, problems: string[], claims: string[] = []): void {
  if (!spec) return;
  const containers: any[] = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const volumes = new Set([...(spec.volumes ?? []).map((v: { name: string }) => v.name), ...claims]);
  const containerNames = new Set<string>();
  const portNames = new Set<string>();
  const hostPorts = new Set<string>();
  for (const container of containers) {
    const at = `${where}.containers[${container.name}]`;
    if (!(container.name?.length <= 63 && DNS_LABEL.test(container.name))) problems.push(`${at}: name is not a DNS label`);
    if (containerNames.has(container.name)) problems.push(`${at}: duplicate container name`);
    containerNames.add(container.name);
    for (const port of container.ports ?? []) {
      if (port.name !== undefined) {
        if (!isIanaSvcName(port.name)) problems.push(`${at}: port name ${port.name} is not an IANA_SVC_NAME`);
        if (portNames.has(port.name)) problems.push(`${at}: duplicate port name ${port.name}`);
        portNames.add(port.name);
      }
      if (!isPort(port.containerPort)) problems.push(`${at}: containerPort ${port.containerPort} out of range`);
      if (port.hostPort !== undefined) {
        if (!isPort(port.hostPort)) problems.push(`${at}: hostPort ${port.hostPort} out of range`);
        const key = `${port.hostPort}/${port.protocol ?? 'TCP'}`;
        if (hostPorts.has(key)) problems.push(`${at}: duplicate hostPort ${key}`);
        hostPorts.add(key);
      }
    }
    for (const mount of container.volumeMounts ?? []) if (!volumes.has(mount.name)) problems.push(`${at}: mounts unknown volume ${mount.name}`);
    for (const env of container.env ?? []) if (!/^[^=]+$/.test(env.name) || !/^[\x20-\x7e]+$/.test(env.name)) problems.push(`${at}: env name ${env.name} is invalid`);
    const probePort = container.readinessProbe?.tcpSocket?.port;
    if (typeof probePort === 'number' && !isPort(probePort)) problems.push(`${at}: probe port ${probePort} out of range`);
    if (container.restartPolicy !== undefined && !(spec.initContainers ?? []).includes(container)) problems.push(`${at}: only init containers may set restartPolicy`);
  }
}

const isPort = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535;

/** RFC 6335 service name: 1–15 of a-z0-9 and non-adjacent hyphens, at least one letter, no hyphen at either end. */
export function isIanaSvcName(name: string): boolean {
  return name.length >= 1 && name.length <= 15 && /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(name) && !name.includes('--') && /[a-z]/.test(name);
}

/** The QoS class Kubernetes gives a pod (Guaranteed: every container limits cpu and memory at its requests). */
export function qosClass(spec: any): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers: any[] = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const any = containers.some((c) => Object.keys(c.resources?.requests ?? {}).length + Object.keys(c.resources?.limits ?? {}).length > 0);
  if (!any) return 'BestEffort';
  const guaranteed = containers.every((c) => ['cpu', 'memory'].every((r) => {
    const limit = c.resources?.limits?.[r];
    const request = c.resources?.requests?.[r] ?? limit;
    return limit !== undefined && String(limit) === String(request);
  }));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
