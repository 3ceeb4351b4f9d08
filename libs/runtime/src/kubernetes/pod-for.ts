// The Pod of one game server: a pure function of the machine spec and the runtime settings, so every
// shape it can take is checked against the Kubernetes schema in pod-for.unit.spec.ts.
import path from 'node:path';
import type { V1Container, V1ContainerPort, V1Pod, V1Probe, V1ResourceRequirements, V1Volume } from '@kubernetes/client-node';
import { COMPUTE_SIZES, type ComputeSize } from '@spawnpoint/domain';
import type { AllocatedPort, MachineSpec } from '../runtime';
import {
  ANNOTATION_COMPUTE_SIZE, ANNOTATION_PORTS, ANNOTATION_PROJECT_ID, ANNOTATION_SERVER_ID, FETCH_CONTAINER, GAME_CONTAINER,
  LABEL_BUILD, LABEL_BUILD_VERSION, LABEL_POOL, LABEL_PROJECT, LABEL_REGION, LABEL_SERVER, MANAGED_BY, MANAGER, PORTS_PROBE_CONTAINER, podName,
} from './labels';
import type { KubernetesRuntimeSettings } from './settings';

/** Where zip builds are unpacked in the pod, and the game's working directory. */
export const GAME_DIR = '/game';
const GAME_VOLUME = 'game';
const ARCHIVE = `${GAME_DIR}/.spawnpoint-build.tar.gz`;
export const ARTIFACT_URL_ENV = 'SPAWNPOINT_ARTIFACT_URL';

// Download to a file first: busybox sh may lack pipefail, and a failed download must fail the init container.
const FETCH_SCRIPT = `set -e
wget -q -O ${ARCHIVE} "$${ARTIFACT_URL_ENV}"
tar -xzf ${ARCHIVE} -C ${GAME_DIR}
rm -f ${ARCHIVE}`;

// PID 1 ignores SIGTERM unless it traps it; without the trap every stop would wait out the grace period.
const SIDECAR_SCRIPT = `trap 'exit 0' TERM; sleep 2147483647 & wait`;
// Enough for sh, sleep and the probe's grep; requests equal limits so dedicated sizes stay Guaranteed.
const SIDECAR_RESOURCES: V1ResourceRequirements = { requests: { cpu: '50m', memory: '16Mi' }, limits: { cpu: '50m', memory: '16Mi' } };

export interface PodPort extends V1ContainerPort {
  name: string;
}

/** The Pod running `spec` in its region. Throws when the spec cannot run on this runtime. */
export function podFor(spec: MachineSpec, settings: KubernetesRuntimeSettings, placement: { node?: string } = {}): V1Pod {
  const region = settings.regions[spec.region];
  if (!region) throw new Error(`server ${spec.serverId}: region ${spec.region} has no cluster configured for the kubernetes runtime`);
  const size = COMPUTE_SIZES.find((s) => s.name === spec.computeSize);
  if (!size) throw new Error(`server ${spec.serverId}: unknown compute size ${spec.computeSize}`);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(spec.serverId) || spec.serverId.length > 60) {
    throw new Error(`server ${spec.serverId}: the server id must be lowercase letters, digits and "-" (at most 60) to name its pod`);
  }
  const build = buildOf(spec);
  const resources = resourcesFor(size);
  const securityContext = { allowPrivilegeEscalation: false };

  const game: V1Container = {
    name: GAME_CONTAINER,
    image: build.kind === 'zip' ? settings.baseImage : build.image,
    ...(build.kind === 'zip' ? { command: [literal(`${GAME_DIR}/${build.executablePath}`)], workingDir: GAME_DIR } : {}),
    ...(spec.args.length > 0 ? { args: spec.args.map(literal) } : {}),
    env: Object.entries(spec.env).map(([name, value]) => ({ name, value: literal(value) })),
    ...(spec.ports.length > 0 ? { ports: containerPorts(spec.ports) } : {}),
    resources,
    ...(build.kind === 'zip' ? { volumeMounts: [{ name: GAME_VOLUME, mountPath: GAME_DIR }] } : {}),
    // The last lines of a crashed game end up in its status, where pod-events.ts reports them.
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext,
  };
  const firstTcp = spec.ports.find((p) => p.protocol === 'tcp');
  if (firstTcp) game.readinessProbe = tcpProbe(firstTcp);

  const initContainers: V1Container[] = [];
  const volumes: V1Volume[] = [];
  if (build.kind === 'zip') {
    initContainers.push({
      name: FETCH_CONTAINER,
      image: settings.fetchImage,
      command: ['sh', '-c', FETCH_SCRIPT],
      env: [{ name: ARTIFACT_URL_ENV, value: literal(build.artifactUrl) }],
      resources,
      volumeMounts: [{ name: GAME_VOLUME, mountPath: GAME_DIR }],
      terminationMessagePolicy: 'FallbackToLogsOnError',
      securityContext,
    });
    volumes.push({ name: GAME_VOLUME, emptyDir: {} });
  }
  const udpPorts = spec.ports.filter((p) => p.protocol === 'udp');
  if (!firstTcp && udpPorts.length > 0) {
    // No probe can see a UDP socket from outside the pod; a sidecar shares the pod's network namespace,
    // so its /proc/net/udp lists the game's sockets (ADR-0003). A native sidecar (restartPolicy Always)
    // ends with the game instead of keeping the pod alive.
    initContainers.push({
      name: PORTS_PROBE_CONTAINER,
      image: settings.fetchImage,
      restartPolicy: 'Always',
      command: ['sh', '-c', SIDECAR_SCRIPT],
      readinessProbe: { exec: { command: ['sh', '-c', udpBoundScript(udpPorts)] }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 3 },
      resources: SIDECAR_RESOURCES,
      securityContext,
    });
  }

  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(spec.serverId),
      namespace: region.namespace,
      labels: labelsFor(spec),
      annotations: {
        [ANNOTATION_SERVER_ID]: spec.serverId,
        [ANNOTATION_PROJECT_ID]: spec.projectId,
        [ANNOTATION_COMPUTE_SIZE]: spec.computeSize,
        [ANNOTATION_PORTS]: JSON.stringify(spec.ports.map((p) => ({ name: p.name, protocol: p.protocol, internalPort: p.internalPort, externalPort: p.externalPort }))),
        // A running match must not be moved to save a node.
        'cluster-autoscaler.kubernetes.io/safe-to-evict': 'false',
      },
    },
    spec: {
      // The platform decides about restarts (auto_restart), so a crashed game stays crashed.
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: settings.terminationGracePeriodSeconds,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(region.nodeSelector ? { nodeSelector: region.nodeSelector } : {}),
      // A region without hosts told players this node's address: the pod must run there (the scheduler
      // still checks that it fits).
      ...(placement.node ? { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [placement.node] }] }],
      } } } } : {}),
      ...(region.tolerations ? { tolerations: region.tolerations } : {}),
      ...(region.imagePullSecrets ? { imagePullSecrets: region.imagePullSecrets.map((name) => ({ name })) } : {}),
      ...(settings.priorityClassName ? { priorityClassName: settings.priorityClassName } : {}),
      ...(settings.runAsNonRoot ? { securityContext: podSecurityContext(spec.ports, settings.runAsUser) } : {}),
      ...(initContainers.length > 0 ? { initContainers } : {}),
      containers: [game],
      ...(volumes.length > 0 ? { volumes } : {}),
    },
  };
}

/**
 * The kubelet expands `$(VAR)` in command, args and env values and turns `$$` into `$`; doubling every `$`
 * hands the game its arguments and variables exactly as given, as the process runtime does.
 */
export const literal = (text: string) => text.replace(/\$/g, '$$$$');

type Build = { kind: 'image'; image: string } | { kind: 'zip'; artifactUrl: string; executablePath: string };

function buildOf(spec: MachineSpec): Build {
  if (spec.image && spec.artifactUrl) throw new Error(`server ${spec.serverId}: both an image and an artifact URL given`);
  if (spec.image) return { kind: 'image', image: spec.image };
  if (!spec.artifactUrl) {
    throw new Error(`server ${spec.serverId}: a zip build needs an artifactUrl on the kubernetes runtime (pods cannot read ${spec.buildDir ?? 'a local build directory'})`);
  }
  if (!spec.executablePath) throw new Error(`server ${spec.serverId}: no executable path`);
  const executablePath = path.posix.normalize(spec.executablePath);
  if (path.posix.isAbsolute(executablePath) || executablePath === '.' || executablePath === '..' || executablePath.startsWith('../')) {
    throw new Error(`server ${spec.serverId}: executable ${spec.executablePath} is outside the build directory`);
  }
  return { kind: 'zip', artifactUrl: spec.artifactUrl, executablePath };
}

/** Requests from the size table; memory limited to the request; dedicated sizes also cap CPU at the request (Guaranteed QoS). */
export function resourcesFor(size: ComputeSize): V1ResourceRequirements {
  const cpu = cpuQuantity(size.cpuRequest);
  const memory = `${size.memoryMb}Mi`;
  return { requests: { cpu, memory }, limits: size.shared ? { memory } : { cpu, memory } };
}

const cpuQuantity = (cores: number) => {
  const millis = Math.round(cores * 1000);
  return millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
};

/** One containerPort per allocated port, exposed on the node at its external port (ADR-0003). */
export function containerPorts(ports: AllocatedPort[]): PodPort[] {
  const names = portNames(ports.map((p) => p.name));
  return ports.map((port, i) => ({
    name: names[i],
    containerPort: port.internalPort,
    hostPort: port.externalPort,
    protocol: port.protocol === 'tcp' ? 'TCP' : 'UDP',
  }));
}

/**
 * IANA_SVC_NAME for each port name, unique within the pod: at most 15 lowercase letters, digits and
 * single hyphens, at least one letter, no hyphen at either end.
 */
export function portNames(names: string[]): string[] {
  const used = new Set<string>();
  return names.map((raw, i) => {
    let base = raw.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    if (!/[a-z]/.test(base)) base = base ? `p-${base}` : 'port';
    base = trimHyphens(base.slice(0, 15));
    let name = base;
    for (let n = i; used.has(name); n++) {
      const suffix = `-${n}`;
      name = `${trimHyphens(base.slice(0, 15 - suffix.length))}${suffix}`;
    }
    used.add(name);
    return name;
  });
}

const trimHyphens = (text: string) => text.replace(/-+$/g, '');

function tcpProbe(port: AllocatedPort): V1Probe {
  return { tcpSocket: { port: port.internalPort }, periodSeconds: 2, timeoutSeconds: 1, failureThreshold: 3 };
}

/** Exit 0 once every UDP port has a socket in the pod's network namespace (local port in hex, as /proc/net shows it). */
export function udpBoundScript(ports: AllocatedPort[]): string {
  const hex = [...new Set(ports.map((p) => p.internalPort.toString(16).toUpperCase().padStart(4, '0')))];
  return `for p in ${hex.join(' ')}; do cat /proc/net/udp /proc/net/udp6 2>/dev/null | grep -qE "^ *[0-9]+: [0-9A-F]+:$p " || exit 1; done`;
}

function podSecurityContext(ports: AllocatedPort[], uid: number) {
  return {
    runAsNonRoot: true, runAsUser: uid, runAsGroup: uid, fsGroup: uid,
    seccompProfile: { type: 'RuntimeDefault' },
    // A safe sysctl: lets a non-root game bind the low port it was configured with.
    ...(ports.some((p) => p.internalPort < 1024) ? { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }] } : {}),
  };
}

function labelsFor(spec: MachineSpec): Record<string, string> {
  const labels: Record<string, string> = {
    [MANAGED_BY]: MANAGER,
    [LABEL_REGION]: spec.region,
  };
  const put = (key: string, value: string | undefined) => {
    const clean = labelValue(value ?? '');
    if (clean) labels[key] = clean;
  };
  put(LABEL_PROJECT, spec.projectId);
  put(LABEL_SERVER, spec.serverId);
  // The spec names the build by tag and version (the env contract); the build id is not part of it.
  put(LABEL_BUILD, spec.env.SPAWNPOINT_VERSION_TAG);
  put(LABEL_BUILD_VERSION, spec.env.SPAWNPOINT_VERSION);
  if (spec.pool) labels[LABEL_POOL] = 'true';
  return labels;
}

/** A label value: at most 63 of `A-Za-z0-9._-`, alphanumeric at both ends; other characters become `_`. */
export function labelValue(value: string): string {
  return value.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 63).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}
