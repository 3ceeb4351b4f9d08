// What the kubernetes runtime needs to know about the clusters: one entry per platform region, plus
// pod defaults. Read from the file named by SPAWNPOINT_K8S_CONFIG (JSON or YAML), validated up front so a
// typo fails the boot with a clear message instead of a pod the API server rejects later.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { V1Toleration } from '@kubernetes/client-node';
import { REGIONS } from '@spawnpoint/domain';
import { kubernetesClient } from './client';

export interface KubernetesRegionSettings {
  /** kubeconfig context of the region's cluster; absent: the current context (in-cluster when deployed by the chart). */
  context?: string;
  namespace: string;
  nodeSelector?: Record<string, string>;
  tolerations?: V1Toleration[];
  /** Secrets (in `namespace`) for pulling private image builds. */
  imagePullSecrets?: string[];
  /**
   * What `network_ports[].host` says for TCP ports: the region's relay. Empty: the address of the node the
   * game pod runs on (the runtime picks the node and pins the pod to it; see NODE_HOST).
   */
  tcpHost: string;
  /** What `network_ports[].host` says for UDP ports: the region's proxy IPv4 address. Empty: the node's address. */
  udpHost: string;
  /** Host ports handed out in this region, inclusive. */
  portRange: [number, number];
}

export type LogStreams = 'combined' | 'split';

export interface KubernetesRuntimeSettings {
  regions: Record<string, KubernetesRegionSettings>;
  /** Image of the init container that fetches zip builds (needs sh, wget, tar) and of the UDP port probe (sh, grep, sleep). */
  fetchImage: string;
  /** Image zip builds run on. */
  baseImage: string;
  terminationGracePeriodSeconds: number;
  /** From the game container starting to all ports bound; then STARTUP_FAILURE_TIMEOUT. */
  startupTimeoutMs: number;
  /** From start() to the game container starting (scheduling, image pull, build fetch); then STARTUP_FAILURE_TIMEOUT. */
  pendingTimeoutMs: number;
  /** How long stop() waits beyond the grace period for the watch to see the pod gone. */
  stopTimeoutMs: number;
  runAsNonRoot: boolean;
  /** The uid (and gid) every container runs as when runAsNonRoot. */
  runAsUser: number;
  priorityClassName?: string;
  /**
   * `split` reads stdout and stderr separately (the PodLogsQuerySplitStreams feature, Kubernetes 1.32+ with
   * the gate on); `combined` reads the one merged stream, where every line counts as stdout.
   */
  logStreams: LogStreams;
}

export const SETTINGS_ENV = 'SPAWNPOINT_K8S_CONFIG';

export const SETTINGS_DEFAULTS = {
  fetchImage: 'busybox:1.36',
  baseImage: 'debian:12-slim',
  terminationGracePeriodSeconds: 30,
  startupTimeoutMs: 120_000,
  pendingTimeoutMs: 600_000,
  stopTimeoutMs: 30_000,
  runAsNonRoot: false,
  runAsUser: 1000,
  logStreams: 'combined',
} satisfies Partial<KubernetesRuntimeSettings>;

const TOP_KEYS = new Set([...Object.keys(SETTINGS_DEFAULTS), 'regions', 'priorityClassName']);
const REGION_KEYS = new Set(['context', 'namespace', 'nodeSelector', 'tolerations', 'imagePullSecrets', 'tcpHost', 'udpHost', 'portRange']);
const TOLERATION_KEYS = new Set(['key', 'operator', 'value', 'effect', 'tolerationSeconds']);

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const HOST = /^[A-Za-z0-9.:\-[\]]+$/;
const IMAGE = /^\S+$/;

/** Validates raw settings (parsed JSON or YAML) and fills the defaults; throws one error listing every problem. */
export function parseKubernetesSettings(raw: unknown, source = 'kubernetes runtime settings'): KubernetesRuntimeSettings {
  const errors: string[] = [];
  const fail = (where: string, problem: string) => errors.push(`${where}: ${problem}`);
  if (!isObject(raw)) throw new Error(`invalid ${source}: expected an object with "regions"`);

  for (const key of Object.keys(raw)) if (!TOP_KEYS.has(key)) fail(key, 'unknown setting');
  const settings: KubernetesRuntimeSettings = { ...SETTINGS_DEFAULTS, regions: {} };
  const str = (key: 'fetchImage' | 'baseImage') => {
    if (raw[key] === undefined) return;
    if (typeof raw[key] === 'string' && IMAGE.test(raw[key])) settings[key] = raw[key];
    else fail(key, 'must be an image reference');
  };
  str('fetchImage');
  str('baseImage');
  const int = (key: 'terminationGracePeriodSeconds' | 'startupTimeoutMs' | 'pendingTimeoutMs' | 'stopTimeoutMs' | 'runAsUser', min: number) => {
    if (raw[key] === undefined) return;
    if (Number.isInteger(raw[key]) && (raw[key] as number) >= min) settings[key] = raw[key] as number;
    else fail(key, `must be an integer >= ${min}`);
  };
  int('terminationGracePeriodSeconds', 1);
  int('startupTimeoutMs', 1);
  int('pendingTimeoutMs', 1);
  int('stopTimeoutMs', 0);
  int('runAsUser', 1);
  if (raw.runAsNonRoot !== undefined) {
    if (typeof raw.runAsNonRoot === 'boolean') settings.runAsNonRoot = raw.runAsNonRoot;
    else fail('runAsNonRoot', 'must be true or false');
  }
  if (raw.priorityClassName !== undefined) {
    if (typeof raw.priorityClassName === 'string' && DNS_SUBDOMAIN.test(raw.priorityClassName)) settings.priorityClassName = raw.priorityClassName;
    else fail('priorityClassName', 'must be a PriorityClass name');
  }
  if (raw.logStreams !== undefined) {
    if (raw.logStreams === 'combined' || raw.logStreams === 'split') settings.logStreams = raw.logStreams;
    else fail('logStreams', 'must be "combined" or "split"');
  }

  if (!isObject(raw.regions) || Object.keys(raw.regions).length === 0) {
    fail('regions', 'at least one region is required');
  } else {
    for (const [region, value] of Object.entries(raw.regions)) {
      const parsed = parseRegion(region, value, fail);
      if (parsed) settings.regions[region] = parsed;
    }
    checkSharedRanges(settings.regions, fail);
  }

  if (errors.length > 0) throw new Error(`invalid ${source}:\n${errors.map((e) => `  - ${e}`).join('\n')}`);
  return settings;
}

function parseRegion(region: string, raw: unknown, fail: (where: string, problem: string) => void): KubernetesRegionSettings | null {
  const at = `regions.${region}`;
  let ok = true;
  const bad = (field: string, problem: string) => {
    ok = false;
    fail(field ? `${at}.${field}` : at, problem);
  };
  if (!(REGIONS as readonly string[]).includes(region)) bad('', `not a Spawnpoint region (one of ${REGIONS.join(', ')})`);
  if (!isObject(raw)) {
    bad('', 'must be an object');
    return null;
  }
  for (const key of Object.keys(raw)) if (!REGION_KEYS.has(key)) bad(key, 'unknown setting');

  if (raw.context !== undefined && (typeof raw.context !== 'string' || raw.context === '')) bad('context', 'must be a kubeconfig context name');
  if (typeof raw.namespace !== 'string' || raw.namespace.length > 63 || !DNS_LABEL.test(raw.namespace)) {
    bad('namespace', 'required: a namespace name (lowercase letters, digits, "-", at most 63)');
  }
  for (const key of ['tcpHost', 'udpHost'] as const) {
    // Absent or empty: the address of the node each game pod runs on.
    if (raw[key] !== undefined && (typeof raw[key] !== 'string' || (raw[key] !== '' && !HOST.test(raw[key])))) {
      bad(key, 'must be a host name or IP address, or empty for the address of the game pod\'s node');
    }
  }
  const portRange = parsePortRange(raw.portRange);
  if (!portRange) bad('portRange', 'required: [low, high] or "low-high", 1 <= low <= high <= 65535');

  if (raw.nodeSelector !== undefined) {
    if (!isObject(raw.nodeSelector)) bad('nodeSelector', 'must be a map of label to value');
    else {
      for (const [key, value] of Object.entries(raw.nodeSelector)) {
        if (!isLabelKey(key)) bad(`nodeSelector.${key}`, 'not a valid label key');
        if (typeof value !== 'string' || !isLabelValue(value)) bad(`nodeSelector.${key}`, 'not a valid label value');
      }
    }
  }
  if (raw.tolerations !== undefined) {
    if (!Array.isArray(raw.tolerations)) bad('tolerations', 'must be a list');
    else raw.tolerations.forEach((t, i) => checkToleration(t, (problem) => bad(`tolerations[${i}]`, problem)));
  }
  if (raw.imagePullSecrets !== undefined) {
    if (!Array.isArray(raw.imagePullSecrets) || !raw.imagePullSecrets.every((s) => typeof s === 'string' && DNS_SUBDOMAIN.test(s))) {
      bad('imagePullSecrets', 'must be a list of Secret names');
    }
  }
  if (!ok) return null;
  return {
    ...(raw.context !== undefined ? { context: raw.context as string } : {}),
    namespace: raw.namespace as string,
    ...(raw.nodeSelector !== undefined ? { nodeSelector: raw.nodeSelector as Record<string, string> } : {}),
    ...(raw.tolerations !== undefined ? { tolerations: raw.tolerations as V1Toleration[] } : {}),
    ...(raw.imagePullSecrets !== undefined ? { imagePullSecrets: raw.imagePullSecrets as string[] } : {}),
    tcpHost: (raw.tcpHost as string | undefined) ?? '',
    udpHost: (raw.udpHost as string | undefined) ?? '',
    portRange: portRange!,
  };
}

function checkToleration(raw: unknown, bad: (problem: string) => void): void {
  if (!isObject(raw)) return bad('must be an object');
  for (const key of Object.keys(raw)) if (!TOLERATION_KEYS.has(key)) bad(`unknown field ${key}`);
  if (raw.operator !== undefined && raw.operator !== 'Equal' && raw.operator !== 'Exists') bad('operator must be Equal or Exists');
  if (raw.effect !== undefined && !['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(raw.effect as string)) {
    bad('effect must be NoSchedule, PreferNoSchedule or NoExecute');
  }
  if (raw.key !== undefined && (typeof raw.key !== 'string' || (raw.key !== '' && !isLabelKey(raw.key)))) bad('key must be a label key');
  if (raw.value !== undefined && typeof raw.value !== 'string') bad('value must be a string');
  if (raw.tolerationSeconds !== undefined && !Number.isInteger(raw.tolerationSeconds)) bad('tolerationSeconds must be an integer');
}

/** Two regions whose pods can land on the same nodes must not hand out the same host ports. */
function checkSharedRanges(regions: Record<string, KubernetesRegionSettings>, fail: (where: string, problem: string) => void): void {
  const entries = Object.entries(regions);
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const [a, ra] = entries[i];
      const [b, rb] = entries[j];
      const sameNodes = (ra.context ?? '') === (rb.context ?? '') && JSON.stringify(sortedEntries(ra.nodeSelector)) === JSON.stringify(sortedEntries(rb.nodeSelector));
      const overlap = ra.portRange[0] <= rb.portRange[1] && rb.portRange[0] <= ra.portRange[1];
      if (sameNodes && overlap) {
        fail(`regions.${b}.portRange`, `overlaps regions.${a}.portRange while both regions schedule onto the same nodes (same context and nodeSelector)`);
      }
    }
  }
}

const sortedEntries = (map: Record<string, string> | undefined) => Object.entries(map ?? {}).sort(([x], [y]) => x.localeCompare(y));

function parsePortRange(raw: unknown): [number, number] | null {
  let pair: unknown[] | null = null;
  if (Array.isArray(raw) && raw.length === 2) pair = raw;
  else if (typeof raw === 'string' && /^\d+-\d+$/.test(raw)) pair = raw.split('-').map(Number);
  if (!pair) return null;
  const [low, high] = pair;
  if (!Number.isInteger(low) || !Number.isInteger(high)) return null;
  if ((low as number) < 1 || (high as number) > 65535 || (low as number) > (high as number)) return null;
  return [low as number, high as number];
}

/** `[prefix/]name`: prefix a DNS subdomain (≤ 253), name ≤ 63 alphanumerics with `-_.` inside. */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash === -1 ? null : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== null && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return false;
  return name.length > 0 && name.length <= 63 && LABEL_NAME.test(name);
}

export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && LABEL_NAME.test(value));
}

/** Reads the settings file named by SPAWNPOINT_K8S_CONFIG: `.json` as JSON, anything else as YAML. */
export async function loadKubernetesSettings(env: NodeJS.ProcessEnv = process.env): Promise<KubernetesRuntimeSettings> {
  const file = env[SETTINGS_ENV];
  if (!file) throw new Error(`${SETTINGS_ENV} is not set: point it at the kubernetes runtime config file (JSON or YAML, see docs/kubernetes.md)`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`${SETTINGS_ENV}=${file}: cannot read the kubernetes runtime config: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = path.extname(file) === '.json' ? JSON.parse(text) : kubernetesClient().loadYaml(text);
  } catch (err) {
    throw new Error(`${SETTINGS_ENV}=${file}: not valid ${path.extname(file) === '.json' ? 'JSON' : 'YAML'}: ${(err as Error).message}`);
  }
  return parseKubernetesSettings(raw, `kubernetes runtime config ${file}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
