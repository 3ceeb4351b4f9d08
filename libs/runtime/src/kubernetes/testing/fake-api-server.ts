// An in-process stand-in for the API server's pod endpoints (list, watch, create, delete, log, metrics)
// and for the kubelet's part (containers start, become ready, exit), so the runtime's bookkeeping can be
// driven through the real client over real HTTP. It implements only what the runtime uses.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig, V1ContainerState, V1Node, V1Pod } from '@kubernetes/client-node';
import { kubernetesClient } from '../client';

interface WatchEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: V1Pod;
}

interface Watcher {
  namespace: string;
  selector: Record<string, string>;
  response: ServerResponse;
}

interface PodLog {
  lines: string[];
  followers: Set<ServerResponse>;
  ended: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: any;
  authorization: string | undefined;
}

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  /** Metrics by pod name (metrics.k8s.io); absent: 404. */
  readonly metrics = new Map<string, object>();
  /** The cluster's nodes (GET /api/v1/nodes, label selectors of `key=value` terms). */
  readonly nodes: V1Node[] = [];
  /** What the kubelet does on a graceful delete: end the game (with this exit code) and remove the pod. */
  kubeletOnDelete: { exitCode: number } | null = { exitCode: 0 };
  private readonly pods = new Map<string, V1Pod>();
  private readonly events: WatchEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly logs = new Map<string, PodLog>();
  private readonly failures: Array<{ method: string; path: RegExp; status: number; times: number }> = [];
  private rv = 1;
  private uids = 0;
  private compactedBefore = 0;
  private server = http.createServer((req, res) => void this.handle(req, res));
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.dropWatches();
    for (const log of this.logs.values()) for (const follower of log.followers) follower.end();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  kubeConfig(): KubeConfig {
    const kubeConfig = new (kubernetesClient().KubeConfig)();
    // http needs skipTLSVerify in the client; the token proves credentials are applied.
    kubeConfig.loadFromClusterAndUser({ name: 'fake', server: this.url, skipTLSVerify: true }, { name: 'fake', token: 'fake-token' });
    return kubeConfig;
  }

  pod(namespace: string, name: string): V1Pod | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  /** The next `times` requests matching method and path fail with `status`. */
  fail(method: string, path: RegExp, status: number, times = 1): void {
    this.failures.push({ method, path, status, times });
  }

  /** Ends every open watch, as a restarted API server or a dropped connection would. */
  dropWatches(): void {
    for (const watcher of this.watchers) watcher.response.end();
    this.watchers.clear();
  }

  /** Forgets the event history: watches resuming from before now get 410 Gone. */
  compact(): void {
    this.compactedBefore = this.rv + 1;
    this.events.length = 0;
  }

  /** The kubelet reports a new state of the game container (and readiness). */
  setGame(namespace: string, name: string, state: V1ContainerState, ready = false, phase?: string): void {
    this.update(namespace, name, (pod) => {
      pod.status = {
        ...pod.status,
        phase: phase ?? (state.terminated ? (state.terminated.exitCode === 0 ? 'Succeeded' : 'Failed') : state.running ? 'Running' : 'Pending'),
        conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: ready ? 'True' : 'False' }],
        containerStatuses: [{ name: 'game', image: 'img', imageID: '', restartCount: 0, ready, state }],
      };
    });
    if (state.terminated) this.endLog(namespace, name);
  }

  update(namespace: string, name: string, change: (pod: V1Pod) => void): void {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw new Error(`no pod ${namespace}/${name}`);
    change(pod);
    this.record('MODIFIED', pod);
  }

  /** Removes a pod; `silently`: without a watch event (as if it happened during a compacted gap). */
  remove(namespace: string, name: string, silently = false): void {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) return;
    this.pods.delete(`${namespace}/${name}`);
    this.endLog(namespace, name);
    if (!silently) this.record('DELETED', pod);
    else this.rv++;
  }

  appendLog(namespace: string, name: string, message: string, at = new Date()): void {
    const log = this.logOf(namespace, name);
    const line = `${at.toISOString().replace('Z', '000000Z')} ${message}`;
    log.lines.push(line);
    for (const follower of log.followers) follower.write(`${line}\n`);
  }

  endLog(namespace: string, name: string): void {
    const log = this.logOf(namespace, name);
    log.ended = true;
    for (const follower of log.followers) follower.end();
    log.followers.clear();
  }

  private logOf(namespace: string, name: string): PodLog {
    const key = `${namespace}/${name}`;
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { lines: [], followers: new Set(), ended: false }));
    return log;
  }

  private record(type: WatchEvent['type'], pod: V1Pod): void {
    pod.metadata!.resourceVersion = String(++this.rv);
    const event = { rv: this.rv, type, object: structuredClone(pod) };
    this.events.push(event);
    for (const watcher of this.watchers) if (matches(watcher, pod)) watcher.response.write(`${JSON.stringify({ type, object: event.object })}\n`);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url!, 'http://fake');
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : undefined;
    this.requests.push({ method: req.method!, path: url.pathname, query: url.searchParams, body: structuredClone(body), authorization: req.headers.authorization });

    const failure = this.failures.find((f) => f.method === req.method && f.path.test(url.pathname + url.search) && f.times > 0);
    if (failure) {
      failure.times--;
      return status(res, failure.status, `injected failure ${failure.status}`);
    }
    let match: RegExpExecArray | null;
    if ((match = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(url.pathname))) {
      const namespace = match[1];
      if (req.method === 'GET' && url.searchParams.get('watch') === 'true') return this.watch(res, namespace, url.searchParams);
      if (req.method === 'GET') return this.list(res, namespace, url.searchParams);
      if (req.method === 'POST') return this.create(res, namespace, body);
    }
    if ((match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(url.pathname)) && req.method === 'DELETE') {
      return this.delete(res, match[1], match[2], url.searchParams, body);
    }
    if ((match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(url.pathname)) && req.method === 'GET') {
      return this.log(res, match[1], match[2], url.searchParams);
    }
    if (url.pathname === '/api/v1/nodes' && req.method === 'GET') {
      const selector = parseSelector(url.searchParams.get('labelSelector'));
      const items = this.nodes.filter((node) => Object.entries(selector).every(([key, value]) => node.metadata?.labels?.[key] === value));
      return json(res, 200, { kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items });
    }
    if ((match = /^\/apis\/metrics.k8s.io\/v1beta1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(url.pathname))) {
      const sample = this.metrics.get(match[2]);
      return sample ? json(res, 200, sample) : status(res, 404, 'the server could not find the requested resource');
    }
    status(res, 404, `no route ${req.method} ${url.pathname}`);
  }

  private list(res: ServerResponse, namespace: string, query: URLSearchParams): void {
    const selector = parseSelector(query.get('labelSelector'));
    const items = [...this.pods.values()].filter((p) => matches({ namespace, selector }, p));
    json(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items });
  }

  private watch(res: ServerResponse, namespace: string, query: URLSearchParams): void {
    const from = Number(query.get('resourceVersion') ?? 0);
    res.writeHead(200, { 'content-type': 'application/json' });
    if (from && from < this.compactedBefore) {
      res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' } })}\n`);
      return;
    }
    const watcher: Watcher = { namespace, selector: parseSelector(query.get('labelSelector')), response: res };
    for (const event of this.events) if (event.rv > from && matches(watcher, event.object)) res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    this.watchers.add(watcher);
    res.on('close', () => this.watchers.delete(watcher));
  }

  private create(res: ServerResponse, namespace: string, pod: V1Pod): void {
    const name = pod.metadata!.name!;
    if (this.pods.has(`${namespace}/${name}`)) return status(res, 409, `pods "${name}" already exists`);
    pod.metadata = { ...pod.metadata, namespace, uid: `uid-${++this.uids}`, creationTimestamp: new Date().toISOString() as never };
    pod.status = { phase: 'Pending' };
    this.pods.set(`${namespace}/${name}`, pod);
    this.record('ADDED', pod);
    json(res, 201, pod);
  }

  private delete(res: ServerResponse, namespace: string, name: string, query: URLSearchParams, options: any): void {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) return status(res, 404, `pods "${name}" not found`);
    const uid = options?.preconditions?.uid;
    if (uid && uid !== pod.metadata!.uid) return status(res, 409, 'Precondition failed: UID in precondition does not match');
    const ended = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    if (!pod.metadata!.deletionTimestamp) {
      pod.metadata!.deletionTimestamp = new Date().toISOString() as never;
      pod.metadata!.deletionGracePeriodSeconds = Number(query.get('gracePeriodSeconds') ?? pod.spec?.terminationGracePeriodSeconds ?? 30);
      this.record('MODIFIED', pod);
    }
    json(res, 200, pod);
    if (ended) return void setTimeout(() => this.remove(namespace, name), 5);
    const kubelet = this.kubeletOnDelete;
    if (!kubelet) return;
    setTimeout(() => {
      if (!this.pods.has(`${namespace}/${name}`)) return;
      this.setGame(namespace, name, { terminated: { exitCode: kubelet.exitCode, reason: kubelet.exitCode === 0 ? 'Completed' : 'Error' } });
      setTimeout(() => this.remove(namespace, name), 5);
    }, 20);
  }

  private log(res: ServerResponse, namespace: string, name: string, query: URLSearchParams): void {
    if (!this.pods.has(`${namespace}/${name}`)) return status(res, 404, `pods "${name}" not found`);
    const log = this.logOf(namespace, name);
    // Like the kubelet: sinceTime at second precision.
    const since = query.get('sinceTime') ? query.get('sinceTime')!.slice(0, 19) : '';
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (const line of log.lines) if (line.slice(0, 19) >= since) res.write(`${line}\n`);
    if (query.get('follow') !== 'true' || log.ended) return void res.end();
    log.followers.add(res);
    res.on('close', () => log.followers.delete(res));
  }
}

function matches(watcher: { namespace: string; selector: Record<string, string> }, pod: V1Pod): boolean {
  if (pod.metadata?.namespace !== watcher.namespace) return false;
  return Object.entries(watcher.selector).every(([key, value]) => pod.metadata?.labels?.[key] === value);
}

function parseSelector(text: string | null): Record<string, string> {
  return Object.fromEntries((text ?? '').split(',').filter(Boolean).map((term) => term.split('=') as [string, string]));
}

function json(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function status(res: ServerResponse, code: number, message: string): void {
  json(res, code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, message });
}
