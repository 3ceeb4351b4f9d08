// List, then watch, one region's game pods, keeping a cache and reporting each change as (before, after).
// The watch resumes from the last resourceVersion seen (bookmarks keep it fresh); when the API server has
// compacted past it (410 Gone) the pods are listed again and the cache resynced, reporting what changed
// in between, including pods that vanished. Failures back off exponentially.
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { describeApiError } from './api-errors';
import type { KubernetesClient } from './client';

export interface PodWatchOptions {
  client: KubernetesClient;
  kubeConfig: KubeConfig;
  namespace: string;
  labelSelector: string;
  /** `current` undefined: the pod was deleted. */
  onChange(previous: V1Pod | undefined, current: V1Pod | undefined): void;
  /** After each list: the names listed, and when the list was asked for. */
  onResync?(listed: ReadonlySet<string>, startedAt: number): void;
  onError(message: string): void;
  backoffMs?: [min: number, max: number];
  /** Asks the API server to end each watch after this long, so a silently dead connection is noticed too. */
  watchTimeoutSeconds?: number;
}

type WatchEnd = 'expired' | 'closed';

export class PodWatch {
  private readonly cache = new Map<string, V1Pod>();
  private resourceVersion: string | undefined;
  private stopped = false;
  private controller: AbortController | null = null;
  private wake: (() => void) | null = null;
  private markSynced!: () => void;
  /** Resolves once the pods were listed the first time. */
  readonly synced = new Promise<void>((resolve) => { this.markSynced = resolve; });
  /** The last failure, while not synced: what `synced` is waiting on. */
  lastError: string | null = null;

  constructor(private readonly options: PodWatchOptions) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
    this.wake?.();
  }

  pods(): V1Pod[] {
    return [...this.cache.values()];
  }

  private async run(): Promise<void> {
    const [minBackoff, maxBackoff] = this.options.backoffMs ?? [500, 30_000];
    let backoff = minBackoff;
    let mustList = true;
    while (!this.stopped) {
      try {
        if (mustList) {
          await this.list();
          mustList = false;
          backoff = minBackoff;
        }
        const startedAt = Date.now();
        const end = await this.watchOnce(() => { backoff = minBackoff; });
        if (end === 'expired') mustList = true;
        // A server that keeps closing watches at once must not be hammered.
        else if (Date.now() - startedAt < 1000) {
          await this.pause(backoff);
          backoff = Math.min(backoff * 2, maxBackoff);
        }
      } catch (err) {
        if (this.stopped) return;
        this.lastError = describeApiError(err);
        this.options.onError(`pods in namespace ${this.options.namespace}: ${mustList ? 'list' : 'watch'} failed, retrying in ${backoff} ms: ${this.lastError}`);
        await this.pause(backoff);
        backoff = Math.min(backoff * 2, maxBackoff);
      }
    }
  }

  private async list(): Promise<void> {
    const { client, kubeConfig, namespace, labelSelector } = this.options;
    const api = kubeConfig.makeApiClient(client.CoreV1Api);
    const startedAt = Date.now();
    const list = await api.listNamespacedPod({ namespace, labelSelector });
    if (this.stopped) return;
    const seen = new Set<string>();
    for (const pod of list.items) {
      const name = pod.metadata!.name!;
      seen.add(name);
      const before = this.cache.get(name);
      this.cache.set(name, pod);
      if (!before || before.metadata?.resourceVersion !== pod.metadata?.resourceVersion) this.options.onChange(before, pod);
    }
    for (const [name, before] of this.cache) {
      if (seen.has(name)) continue;
      this.cache.delete(name);
      this.options.onChange(before, undefined);
    }
    this.resourceVersion = list.metadata?.resourceVersion;
    this.lastError = null;
    this.options.onResync?.(seen, startedAt);
    this.markSynced();
  }

  private watchOnce(onEvent: () => void): Promise<WatchEnd> {
    const { client, kubeConfig, namespace, labelSelector } = this.options;
    const timeoutSeconds = this.options.watchTimeoutSeconds ?? 300;
    return new Promise<WatchEnd>((resolve, reject) => {
      let expired = false;
      let ended = false;
      let failure: Error | null = null;
      // Past the server's own timeout with nothing heard, the connection is presumed dead.
      let watchdog: NodeJS.Timeout | undefined;
      const feed = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => this.controller?.abort(), (timeoutSeconds + 30) * 1000);
      };
      const finish = (err: unknown) => {
        ended = true;
        clearTimeout(watchdog);
        this.controller = null;
        if (expired || (err as { statusCode?: number } | null)?.statusCode === 410) resolve('expired');
        else if (failure) reject(failure);
        else if (err && !this.stopped && !isAbort(err)) reject(err);
        else resolve('closed');
      };
      feed();
      new client.Watch(kubeConfig).watch(
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`,
        { labelSelector, resourceVersion: this.resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
        (type: string, object: any) => {
          // Lines already buffered still arrive after an abort: they belong to a watch that is over.
          if (ended || this.stopped) return;
          feed();
          if (type === 'ERROR') {
            if (object?.code === 410) expired = true;
            else failure = new Error(`watch error ${object?.code ?? ''}: ${object?.message ?? JSON.stringify(object)}`);
            this.controller?.abort();
            return;
          }
          const pod = object as V1Pod;
          if (pod?.metadata?.resourceVersion) this.resourceVersion = pod.metadata.resourceVersion;
          if (type === 'BOOKMARK') return;
          onEvent();
          const name = pod.metadata!.name!;
          const before = this.cache.get(name);
          if (type === 'DELETED') {
            this.cache.delete(name);
            // The deleted object carries the pod's final state: report it, then the deletion.
            if (before?.metadata?.resourceVersion !== pod.metadata?.resourceVersion) this.options.onChange(before, pod);
            this.options.onChange(pod, undefined);
          } else {
            this.cache.set(name, pod);
            this.options.onChange(before, pod);
          }
        },
        finish,
      ).then((controller) => {
        this.controller = controller;
        if (this.stopped) controller.abort();
      }, finish);
    });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}

const isAbort = (err: unknown) => (err as { name?: string } | null)?.name === 'AbortError' || (err as { type?: string } | null)?.type === 'aborted';
