// The kubernetes game runtime: one Pod per game server (podFor), in the cluster and namespace of its
// region; a watch per region turns pod updates into machine events (podEvents); logs are followed from
// the API server. Pods outlive this process: close() detaches, and the next instance adopts the pods it
// finds, so deploying the servers service does not end matches. With several servers replicas (ADR-0021)
// each watches only its own pods (adoptOnSight false: reconcile adopts what its owner lease says is its)
// and host ports are reserved in a ledger every replica shares (PostgreSQL in the servers app).
import type { CoreV1Api, CustomObjectsApi, KubeConfig, V1Node, V1Pod, V1Taint, V1Toleration } from '@kubernetes/client-node';
import { emitTo } from '../listeners';
import { classifyLogLevel } from '../log-level';
import { MachineTimers } from '../machine-timers';
import type { AllocatedPort, ExitReason, GameRuntime, LogStream, MachineEvent, MachineMetrics, MachineSpec, PortSpec, RecoveredMachine } from '../runtime';
import { ApiStatusError, describeApiError } from './api-errors';
import { openApiStream } from './api-stream';
import { kubernetesClient, type KubernetesClient } from './client';
import type { HostPortLedger } from './host-port-ledger';
import { HostPortPool } from './host-port-pool';
import { ANNOTATION_PORTS, ANNOTATION_SERVER_ID, GAME_CONTAINER, podName, regionSelector } from './labels';
import { LogFollower } from './log-follower';
import { podFor } from './pod-for';
import { gameStatus, outcomeOf, podEvents, serverIdOf } from './pod-events';
import { PodWatch } from './pod-watch';
import { parseQuantity } from './quantity';
import { loadKubernetesSettings, type KubernetesRegionSettings, type KubernetesRuntimeSettings } from './settings';
import { tracedApi } from '../tracing';
import { logger } from '@spawnpoint/logging';

const log = logger('runtime');

export interface KubernetesRuntimeOptions {
  /** The kubeconfig regions pick their contexts from; default: KUBECONFIG, ~/.kube/config, or in-cluster. */
  kubeConfig?: KubeConfig;
  /** Where background failures (watch, delete retries) are reported; default a warning in the platform's log. */
  warn?: (message: string) => void;
  /** Watch retry backoff, first and longest. */
  backoffMs?: [number, number];
  /**
   * Host port reservations shared with the other servers replicas (ADR-0021). Without one they are kept in
   * this process, which is right for a single replica only.
   */
  ledger?: HostPortLedger;
  /**
   * Whether every pod of the regions is watched as this instance's own (default true: a single replica). With
   * false a pod it did not start is watched (events, logs, timeouts) only once adopt() asks for it, as
   * reconcile does with the pods whose server it owns; unwatched pods still count as taken ports, stop()
   * still deletes them, and metrics() still reads them.
   */
  adoptOnSight?: boolean;
}

// After the game ends, how long its log streams may take to deliver their last lines.
const DRAIN_TIMEOUT_MS = 3000;
const SYNC_TIMEOUT_MS = 30_000;

interface Region {
  readonly name: string;
  readonly settings: KubernetesRegionSettings;
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  readonly pool: HostPortPool;
  readonly watch: PodWatch;
  synced: boolean;
}

interface PodUpdate {
  pod: V1Pod;
  deleted: boolean;
}

interface Machine {
  readonly serverId: string;
  readonly region: Region;
  readonly podName: string;
  /** Known once created (or adopted); updates of other pods by the same name are not this machine's. */
  uid: string | undefined;
  /** Updates that arrived while the create call was in flight. */
  readonly early: PodUpdate[];
  readonly created: Promise<void>;
  /** When the create call returned (0: in flight); a list begun earlier may not show the pod yet. */
  createdAt: number;
  pod: V1Pod | undefined;
  adopted: boolean;
  /** Set when the platform ends the game, so the exit is not reported as the game's own doing. */
  exitReason: ExitReason | null;
  portsBound: boolean;
  gameStarted: boolean;
  exited: boolean;
  stopRequested: Promise<void> | null;
  logs: LogFollower[];
  readonly timers: MachineTimers;
  queue: Promise<void>;
  readonly gone: Promise<void>;
  markGone(): void;
}

/** Runs each game server as a Pod in its region's cluster. */
export class KubernetesRuntime implements GameRuntime {
  readonly kind = 'kubernetes';
  private readonly client: KubernetesClient;
  private readonly regions = new Map<string, Region>();
  private readonly machines = new Map<string, Machine>();
  private readonly reservations = new Map<string, Region>();
  /** Regions without hosts: the node each server's game pod is pinned to (players were given its address). */
  private readonly placements = new Map<string, string>();
  /** Pods whose end was reported without the watch seeing them go: deleted again if they show up. */
  private readonly tombstones = new Set<string>();
  private readonly listeners = new Set<(event: MachineEvent) => void>();
  private readonly warn: (message: string) => void;
  private readonly ledger: HostPortLedger | undefined;
  private readonly adoptOnSight: boolean;
  /** Unwatched pods being deleted, by uid: `gone` is called when the watch sees the pod go. */
  private readonly ending = new Map<string, { done: Promise<void>; gone: () => void }>();
  private closed = false;

  constructor(readonly settings: KubernetesRuntimeSettings, options: KubernetesRuntimeOptions = {}) {
    this.client = kubernetesClient();
    this.warn = options.warn ?? ((message) => log.warn(`kubernetes runtime: ${message}`));
    this.ledger = options.ledger;
    this.adoptOnSight = options.adoptOnSight ?? true;
    const base = options.kubeConfig ?? this.defaultKubeConfig();
    for (const [name, regionSettings] of Object.entries(settings.regions)) {
      const kubeConfig = regionSettings.context ? this.withContext(base, name, regionSettings.context) : base;
      const watch = new PodWatch({
        client: this.client, kubeConfig, namespace: regionSettings.namespace, labelSelector: regionSelector(name),
        onChange: (previous, current) => this.onPodChange(name, current ?? previous!, !current),
        onResync: (listed, startedAt) => this.onResync(name, listed, startedAt),
        onError: (message) => this.warn(`region ${name}: ${message}`),
        backoffMs: options.backoffMs,
      });
      this.regions.set(name, {
        name, settings: regionSettings, kubeConfig, watch,
        // Each API call a CLIENT span when it is part of a trace (a start request's).
        core: tracedApi(kubeConfig.makeApiClient(this.client.CoreV1Api), { region: name, server: kubeConfig.getCurrentCluster()?.server }),
        custom: tracedApi(kubeConfig.makeApiClient(this.client.CustomObjectsApi), { region: name, server: kubeConfig.getCurrentCluster()?.server }),
        // Replicas sharing a ledger start next-fit at different ports, so they rarely race for the same one.
        pool: new HostPortPool(regionSettings.portRange, this.ledger ? randomPortIn(regionSettings.portRange) : undefined),
        synced: false,
      });
    }
    for (const region of this.regions.values()) {
      void region.watch.synced.then(() => { region.synced = true; });
      region.watch.start();
    }
  }

  /** A runtime whose view of every region is complete: `running()` then includes pods started before this process. */
  static async connect(settings: KubernetesRuntimeSettings, options: KubernetesRuntimeOptions & { syncTimeoutMs?: number } = {}): Promise<KubernetesRuntime> {
    const runtime = new KubernetesRuntime(settings, options);
    try {
      await runtime.synced(options.syncTimeoutMs);
    } catch (err) {
      await runtime.close();
      throw err;
    }
    return runtime;
  }

  /** What RUNTIME=kubernetes starts: the config file named by SPAWNPOINT_K8S_CONFIG, connected. */
  static async fromEnvironment(env: NodeJS.ProcessEnv = process.env, options: KubernetesRuntimeOptions & { syncTimeoutMs?: number } = {}): Promise<KubernetesRuntime> {
    return KubernetesRuntime.connect(await loadKubernetesSettings(env), options);
  }

  /** Resolves once every region's pods were listed; rejects after timeoutMs naming the regions still failing. */
  async synced(timeoutMs = SYNC_TIMEOUT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const failing = [...this.regions.values()].filter((r) => !r.synced)
          .map((r) => `region ${r.name} (namespace ${r.settings.namespace}): ${r.watch.lastError ?? 'no answer'}`);
        reject(new Error(`kubernetes runtime: could not list the game pods within ${timeoutMs} ms: ${failing.join('; ')}`));
      }, timeoutMs);
    });
    try {
      await Promise.race([Promise.all([...this.regions.values()].map((r) => r.watch.synced)), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Ports for a server about to start in `region`. The port interface does not carry the region; with a
   * single region configured it may be left out.
   */
  async allocatePorts(serverId: string, ports: PortSpec[], region?: string): Promise<AllocatedPort[]> {
    const target = this.regionFor(serverId, region);
    const previous = this.reservations.get(serverId);
    if (previous && previous !== target) throw new Error(`server ${serverId} already holds ports in region ${previous.name}`);
    const hostOf = (port: PortSpec) => (port.protocol === 'tcp' ? target.settings.tcpHost : target.settings.udpHost);
    // A region without a host for these ports gives players the address of a node picked now; the pod is
    // pinned to it (start), so that address is the one its host ports answer on.
    const node = ports.some((port) => !hostOf(port)) ? await this.pickNode(target) : null;
    const numbers = this.ledger
      ? await this.reserveInLedger(this.ledger, target, serverId, ports.length)
      : this.pickPorts(target, ports.length, this.busyPorts(target), (count, busy) => target.pool.allocate(serverId, count, busy));
    this.reservations.set(serverId, target);
    if (node) this.placements.set(serverId, node.name);
    else this.placements.delete(serverId);
    return ports.map((port, i) => ({
      ...port,
      // The game binds its configured port inside the pod; the node forwards the external one to it.
      bindPort: port.internalPort,
      externalPort: numbers[i],
      host: hostOf(port) || node!.address,
    }));
  }

  async releasePorts(serverId: string): Promise<void> {
    this.reservations.get(serverId)?.pool.release(serverId);
    this.reservations.delete(serverId);
    this.placements.delete(serverId);
    await this.ledger?.release(serverId);
  }

  /**
   * `count` ports of the region in the shared ledger, all or none. Candidates come next-fit from the pool,
   * skipping ports live pods hold and ports the ledger says are reserved; a candidate another replica
   * reserved in between is replaced by the next one. A server that holds `count` ports already (a retried
   * allocation, a crash restart on another replica) gets the same ones again.
   */
  private async reserveInLedger(ledger: HostPortLedger, region: Region, serverId: string, count: number): Promise<number[]> {
    const held = await ledger.held(region.name);
    const mine = [...held].filter(([, holder]) => holder === serverId).map(([port]) => port);
    if (mine.length === count) return mine.sort(byNumber);
    if (mine.length > 0) await ledger.release(serverId);
    const taken = new Set([...this.busyPorts(region), ...held.keys()]);
    const won: number[] = [];
    try {
      while (won.length < count) {
        const candidates = this.pickPorts(region, count - won.length, taken, (n, busy) => region.pool.pick(n, busy));
        for (const port of candidates) taken.add(port);
        won.push(...(await ledger.reserve(region.name, serverId, candidates)));
      }
    } catch (err) {
      if (won.length > 0) await ledger.release(serverId).catch(() => undefined);
      throw err;
    }
    return won.sort(byNumber);
  }

  /** The pool's pick, its "range is full" said with the region and what holds the ports. */
  private pickPorts(region: Region, count: number, busy: ReadonlySet<number>, pick: (count: number, busy: ReadonlySet<number>) => number[]): number[] {
    try {
      return pick(count, busy);
    } catch (err) {
      throw new Error(`region ${region.name}: ${(err as Error).message}; ${busy.size} of its ports are held by live pods${this.ledger ? ' or reserved by other servers' : ''}`);
    }
  }

  async start(spec: MachineSpec): Promise<void> {
    if (this.closed) throw new Error('kubernetes runtime is closed');
    const region = this.regions.get(spec.region);
    if (!region) throw new Error(`server ${spec.serverId}: region ${spec.region} has no cluster configured for the kubernetes runtime`);
    // Synchronous unless a node must be looked up (a stop right after start must find the machine tracked).
    const node = this.placements.get(spec.serverId) ?? (nodeHostsOf(spec, region.settings).size > 0 ? await this.nodeAt(spec, region) : undefined);
    const pod = podFor(spec, this.settings, { node });
    const earlier = this.machines.get(spec.serverId);
    if (earlier && !earlier.exited) throw new Error(`server ${spec.serverId} is already running`);
    if (earlier) await this.awaitGone(earlier);
    // A crash restart here of a game another replica ran: its ended pod goes first (the name is the same).
    const unwatched = this.unwatchedPod(spec.serverId);
    if (unwatched) await this.awaitUnwatchedGone(spec.serverId, unwatched.pod);

    const reservedIn = this.reservations.get(spec.serverId);
    if (reservedIn && reservedIn !== region) throw new Error(`server ${spec.serverId}: its ports were allocated in region ${reservedIn.name}, not ${region.name}`);
    const hostPorts = spec.ports.map((p) => p.externalPort);
    if (!this.ledger) region.pool.claim(spec.serverId, hostPorts);
    this.reservations.set(spec.serverId, region);

    let markCreated!: () => void;
    const machine = this.track(spec.serverId, region, new Promise<void>((resolve) => { markCreated = resolve; }));
    if (this.ledger) {
      // Claimed again: another replica's late teardown of this server's previous run may have released them.
      const mine = await this.ledger.reserve(region.name, spec.serverId, hostPorts).catch((err) => {
        this.untrack(machine, markCreated);
        throw err;
      });
      const refused = hostPorts.filter((port) => !mine.includes(port));
      if (refused.length > 0) {
        this.untrack(machine, markCreated);
        throw new Error(`server ${spec.serverId}: host port ${refused.join(', ')} of region ${region.name} is reserved for another server`);
      }
    }
    try {
      const created = await region.core.createNamespacedPod({ namespace: region.settings.namespace, body: pod });
      machine.uid = created.metadata?.uid;
      machine.createdAt = Date.now();
    } catch (err) {
      this.untrack(machine, () => undefined);
      throw new Error(`kubernetes: could not create pod ${machine.podName} in namespace ${region.settings.namespace} (region ${region.name}): ${describeApiError(err)}`, { cause: err });
    } finally {
      markCreated();
    }
    for (const update of machine.early.splice(0)) if (update.pod.metadata?.uid === machine.uid) this.enqueue(machine, update);
    machine.timers.later(this.settings.pendingTimeoutMs, () => this.pendingTimeout(machine));
  }

  stop(serverId: string, graceMs?: number): Promise<void> {
    const graceSeconds = graceMs === undefined ? this.settings.terminationGracePeriodSeconds : Math.max(1, Math.ceil(graceMs / 1000));
    const machine = this.machines.get(serverId);
    // Another instance's pod (a stopped server's teardown runs on every replica; reconcile's strays).
    if (!machine) return this.endUnwatched(serverId, graceSeconds);
    if (!machine.stopRequested) {
      if (!machine.exited) machine.exitReason ??= 'SHUTDOWN_SIGNAL';
      machine.stopRequested = this.deleteAndAwait(machine, graceSeconds);
    }
    return machine.stopRequested;
  }

  /**
   * Watch a pod this instance sees but does not watch (adoptOnSight false) as its own: its server's owner is
   * now this instance (reconcile after a restart, or a take-over from an owner whose lease expired). Its
   * current state is reported as for any adopted pod (ports bound, or how it ended). False: no pod is seen.
   */
  adopt(serverId: string): boolean {
    if (this.machines.has(serverId)) return true;
    const seen = this.unwatchedPod(serverId);
    if (!seen) return false;
    this.enqueue(this.trackAdopted(seen.region.name, serverId, seen.pod), { pod: seen.pod, deleted: false });
    return true;
  }

  /** The servers whose pods the regions show but this instance does not watch (adoptOnSight false: other instances', until adopted). */
  unwatched(): string[] {
    const ids = new Set<string>();
    for (const region of this.regions.values()) {
      for (const pod of region.watch.pods()) {
        const serverId = serverIdOf(pod);
        if (serverId && !this.machines.has(serverId)) ids.add(serverId);
      }
    }
    return [...ids].sort();
  }

  watch(listener: (event: MachineEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  running(): string[] {
    return [...this.machines.values()].filter((m) => !m.exited).map((m) => m.serverId);
  }

  /**
   * Pods carry their server's label: once every region is listed, each live one is adopted (onPodChange);
   * with adoptOnSight false none is, and unwatched() lists them for reconcile to adopt what is its own.
   */
  async recover(): Promise<RecoveredMachine[]> {
    await this.synced();
    return this.running().map((serverId) => ({ serverId, spec: null }));
  }

  async metrics(serverId: string): Promise<MachineMetrics | null> {
    const machine = this.machines.get(serverId);
    // Any replica answers: a pod another instance watches is read the same way.
    const other = machine ? undefined : this.unwatchedPod(serverId);
    if (machine ? machine.exited : !other || outcomeOf(other.pod)) return null;
    const region = machine?.region ?? other!.region;
    const pod = machine ? machine.pod : other!.pod;
    const name = machine?.podName ?? other!.pod.metadata!.name!;
    const limits = pod?.spec?.containers.find((c) => c.name === GAME_CONTAINER)?.resources?.limits;
    const result: MachineMetrics = {
      cpu_percent: null, memory_bytes: null, memory_limit_bytes: parseQuantity(limits?.memory), network_rx_bytes: null, network_tx_bytes: null,
      sampled_at: new Date().toISOString(),
    };
    try {
      // metrics.k8s.io (metrics-server); absent, or no sample yet for a new pod: the usage stays null.
      const sample = (await region.custom.getNamespacedCustomObject({
        group: 'metrics.k8s.io', version: 'v1beta1', namespace: region.settings.namespace, plural: 'pods', name,
      })) as { timestamp?: string; containers?: Array<{ name: string; usage?: { cpu?: string; memory?: string } }> };
      const usage = sample.containers?.find((c) => c.name === GAME_CONTAINER)?.usage;
      const cores = parseQuantity(usage?.cpu);
      result.cpu_percent = cores === null ? null : cores * 100;
      result.memory_bytes = parseQuantity(usage?.memory);
      const at = sample.timestamp ? new Date(sample.timestamp) : null;
      if (at && !Number.isNaN(at.getTime())) result.sampled_at = at.toISOString();
    } catch {
      // No metrics API, or no sample yet.
    }
    return result;
  }

  /** Stops watching and following logs. The pods keep running: a new runtime adopts them. */
  async close(): Promise<void> {
    this.closed = true;
    for (const region of this.regions.values()) region.watch.stop();
    for (const machine of this.machines.values()) this.detach(machine);
    for (const { gone } of this.ending.values()) gone();
    this.listeners.clear();
  }

  // --- tracking pods -------------------------------------------------------------------------

  private track(serverId: string, region: Region, created: Promise<void>, adopted = false): Machine {
    let markGone!: () => void;
    const machine: Machine = {
      serverId, region, podName: podName(serverId), uid: undefined, early: [], created, createdAt: 0, pod: undefined, adopted,
      exitReason: null, portsBound: false, gameStarted: false, exited: false, stopRequested: null, logs: [],
      timers: new MachineTimers(), queue: Promise.resolve(),
      gone: new Promise<void>((resolve) => { markGone = resolve; }),
      markGone: () => markGone(),
    };
    this.machines.set(serverId, machine);
    return machine;
  }

  private onPodChange(regionName: string, pod: V1Pod, deleted: boolean): void {
    if (this.closed) return;
    const serverId = serverIdOf(pod);
    const uid = pod.metadata?.uid;
    if (!serverId || !uid) return;
    if (deleted) this.ending.get(uid)?.gone();
    if (this.tombstones.has(uid)) {
      if (deleted) this.tombstones.delete(uid);
      else if (!pod.metadata?.deletionTimestamp) void this.deletePod(this.regions.get(regionName)!, pod, 1);
      return;
    }
    let machine = this.machines.get(serverId);
    if (machine && machine.region.name !== regionName) {
      this.warn(`server ${serverId} has pods in regions ${machine.region.name} and ${regionName}; ignoring the one in ${regionName}`);
      return;
    }
    if (!machine) {
      // Another instance's pod, or one reconcile has not adopted yet.
      if (deleted || !this.adoptOnSight) return;
      machine = this.trackAdopted(regionName, serverId, pod);
    }
    if (machine.uid === undefined) {
      machine.early.push({ pod, deleted });
      return;
    }
    if (machine.uid !== uid) return;
    this.enqueue(machine, { pod, deleted });
  }

  /** After a (re)list: a pod we created that the list does not show went away unseen. */
  private onResync(regionName: string, listed: ReadonlySet<string>, listStartedAt: number): void {
    for (const machine of this.machines.values()) {
      if (machine.region.name !== regionName || machine.adopted || machine.createdAt === 0 || machine.createdAt > listStartedAt) continue;
      if (listed.has(machine.podName) || machine.pod) continue;
      this.enqueue(machine, undefined);
    }
  }

  /** A pod this process did not start: started before a restart, or by another replica. */
  private trackAdopted(regionName: string, serverId: string, pod: V1Pod): Machine {
    const region = this.regions.get(regionName)!;
    const machine = this.track(serverId, region, Promise.resolve(), true);
    machine.uid = pod.metadata?.uid;
    // The clocks started with the pod, not with this process; a game that already runs is past this one.
    const state = gameStatus(pod)?.state;
    if (!state?.running && !state?.terminated) {
      const createdAt = timeOf(pod.metadata?.creationTimestamp) ?? Date.now();
      machine.timers.later(Math.max(0, createdAt + this.settings.pendingTimeoutMs - Date.now()), () => this.pendingTimeout(machine));
    }
    return machine;
  }

  /** Updates of one pod are handled in order, one at a time (an exit waits for the last log lines). */
  private enqueue(machine: Machine, update: PodUpdate | undefined): void {
    machine.queue = machine.queue.then(() => this.apply(machine, update)).catch((err) => {
      this.warn(`server ${machine.serverId}: handling a pod update failed: ${describeApiError(err)}`);
    });
  }

  /** `update` undefined: the pod vanished without the watch saying so. */
  private async apply(machine: Machine, update: PodUpdate | undefined): Promise<void> {
    const previous = machine.pod ?? { metadata: { name: machine.podName, annotations: { [ANNOTATION_SERVER_ID]: machine.serverId } } };
    const current = update && !update.deleted ? update.pod : undefined;
    if (update) machine.pod = update.pod;
    const now = new Date();
    // A deletion is reported with the pod's final state first, then the deletion itself.
    const events = update?.deleted ? [...podEvents(previous, update.pod, now), ...podEvents(update.pod, undefined, now)] : podEvents(previous, current, now);
    if (current) this.observeGame(machine, current);
    for (const event of events) {
      if (event.type === 'log') this.emit(event);
      else if (event.type === 'ports_bound') {
        // Readiness can flap; the game bound its ports once.
        if (machine.portsBound || machine.exited) continue;
        machine.portsBound = true;
        this.emit(event);
      } else await this.finishExit(machine, event, current);
    }
    if (!current) this.forget(machine);
  }

  /** Start the startup clock and the log streams once the game container runs. */
  private observeGame(machine: Machine, pod: V1Pod): void {
    const state = gameStatus(pod)?.state;
    if (!state?.running && !state?.terminated) return;
    if (!machine.gameStarted) {
      machine.gameStarted = true;
      if (!machine.portsBound && !machine.exited && state.running) {
        // An adopted pod's game may have been starting for a while already.
        const startedAt = machine.adopted ? (timeOf(state.running.startedAt) ?? Date.now()) : Date.now();
        machine.timers.later(Math.max(0, startedAt + this.settings.startupTimeoutMs - Date.now()), () => this.startupTimeout(machine));
      }
    }
    if (machine.logs.length === 0 && !machine.exited) this.followLogs(machine);
  }

  private followLogs(machine: Machine): void {
    const { region, podName: name } = machine;
    const since = machine.adopted ? new Date().toISOString() : undefined;
    const streams: Array<{ stream: LogStream; query?: string }> = this.settings.logStreams === 'split'
      ? [{ stream: 'stdout', query: 'Stdout' }, { stream: 'stderr', query: 'Stderr' }]
      : [{ stream: 'stdout' }];
    machine.logs = streams.map(({ stream, query }) => new LogFollower({
      since,
      open: (params, signal) => openApiStream(
        region.kubeConfig, `/api/v1/namespaces/${encodeURIComponent(region.settings.namespace)}/pods/${encodeURIComponent(name)}/log`,
        { ...params, container: GAME_CONTAINER, stream: query }, signal,
      ),
      // 404: the pod is gone, nothing more to read.
      isFinal: (err) => err instanceof ApiStatusError && err.statusCode === 404,
      onLine: ({ timestamp, message }) => this.emit({
        type: 'log', entry: { serverId: machine.serverId, timestamp, stream, level: classifyLogLevel(message, stream), message },
      }),
    }));
  }

  private async finishExit(machine: Machine, event: Extract<MachineEvent, { type: 'exited' }>, current: V1Pod | undefined): Promise<void> {
    if (machine.exited) return;
    machine.exited = true;
    machine.timers.clear();
    // The game's last lines belong before its exit.
    for (const follower of machine.logs) follower.finish();
    await this.drainLogs(machine);
    this.emit({ ...event, reason: machine.exitReason ?? event.reason });
    // A pod that ended by itself stays in the API as Failed/Succeeded (or stuck pulling): clean it up.
    if (current && !current.metadata?.deletionTimestamp) void this.deletePod(machine.region, current, 0);
  }

  private async drainLogs(machine: Machine): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(machine.logs.map((f) => f.done)),
      new Promise<void>((resolve) => { timer = setTimeout(resolve, DRAIN_TIMEOUT_MS); }),
    ]);
    clearTimeout(timer);
    for (const follower of machine.logs) follower.stop();
  }

  /** The pod is gone from the API. */
  private forget(machine: Machine): void {
    this.detach(machine);
    if (this.machines.get(machine.serverId) === machine) this.machines.delete(machine.serverId);
    machine.markGone();
  }

  private detach(machine: Machine): void {
    machine.timers.clear();
    for (const follower of machine.logs) follower.stop();
  }

  // --- ending pods -----------------------------------------------------------------------------

  private async deleteAndAwait(machine: Machine, graceSeconds: number): Promise<void> {
    const deadline = Date.now() + graceSeconds * 1000 + this.settings.stopTimeoutMs;
    await machine.created;
    if (this.machines.get(machine.serverId) !== machine) return;
    void this.deleteUntil(machine, graceSeconds, deadline);
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      machine.gone.then(() => 'gone' as const),
      new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now())); }),
    ]);
    clearTimeout(timer);
    if (outcome === 'gone') return;
    // The watch never saw it go (API unreachable, or a node that no longer answers): report the end
    // anyway, and delete the pod should it turn up again.
    if (machine.uid) this.tombstones.add(machine.uid);
    if (!machine.exited) {
      this.platformLog(machine.serverId, 'warn', `the pod ${machine.podName} was not confirmed gone within ${Math.round((graceSeconds * 1000 + this.settings.stopTimeoutMs) / 1000)} s; reporting it stopped`);
      await this.finishExit(machine, { type: 'exited', serverId: machine.serverId, at: new Date(), exitCode: null, signal: null, reason: 'SHUTDOWN_SIGNAL' }, undefined);
    }
    this.forget(machine);
  }

  /** Delete the pod, retrying failures until the deadline. */
  private async deleteUntil(machine: Machine, graceSeconds: number, deadline: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const pod = machine.pod ?? { metadata: { name: machine.podName, uid: machine.uid } };
      if (await this.deletePod(machine.region, pod, graceSeconds)) return;
      const wait = Math.min(500 * 2 ** attempt, 5000);
      if (Date.now() + wait >= deadline || this.machines.get(machine.serverId) !== machine) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * Whether the delete went through (or the pod is already gone). Preconditioned on the uid: never another
   * pod by the same name. graceSeconds 0: the pod's own grace period (an API grace of 0 would force-delete).
   */
  private async deletePod(region: Region, pod: V1Pod, graceSeconds: number): Promise<boolean> {
    const name = pod.metadata!.name!;
    try {
      await region.core.deleteNamespacedPod({
        name, namespace: region.settings.namespace,
        ...(graceSeconds > 0 ? { gracePeriodSeconds: graceSeconds } : {}),
        body: { preconditions: pod.metadata?.uid ? { uid: pod.metadata.uid } : undefined },
      });
      return true;
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 404 || code === 409) return true; // gone, or a newer pod by that name
      this.warn(`region ${region.name}: deleting pod ${name} failed: ${describeApiError(err)}`);
      return false;
    }
  }

  private async awaitGone(machine: Machine): Promise<void> {
    void this.stop(machine.serverId, 1000);
    let timer: NodeJS.Timeout | undefined;
    const gone = await Promise.race([
      machine.gone.then(() => true),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), this.settings.stopTimeoutMs + 1000); }),
    ]);
    clearTimeout(timer);
    if (!gone) throw new Error(`server ${machine.serverId}: its previous pod ${machine.podName} is still terminating`);
  }

  /** Forget a machine whose pod was never created. */
  private untrack(machine: Machine, markCreated: () => void): void {
    if (this.machines.get(machine.serverId) === machine) this.machines.delete(machine.serverId);
    machine.markGone();
    markCreated();
  }

  /**
   * Delete another instance's pod of the server (uid-preconditioned: never a newer pod by that name) and wait
   * until the watch sees it go, at most the grace period and stopTimeoutMs. Its exit is its owner's to report.
   */
  private endUnwatched(serverId: string, graceSeconds: number): Promise<void> {
    const seen = this.unwatchedPod(serverId);
    if (!seen) return Promise.resolve();
    const { region, pod } = seen;
    const uid = pod.metadata!.uid!;
    const ending = this.ending.get(uid);
    if (ending) return ending.done;
    let gone!: () => void;
    let timer: NodeJS.Timeout | undefined;
    const deleted = new Promise<void>((resolve) => {
      gone = resolve;
      timer = setTimeout(resolve, graceSeconds * 1000 + this.settings.stopTimeoutMs);
    });
    const done = (async () => {
      try {
        if (!pod.metadata?.deletionTimestamp && !(await this.deletePod(region, pod, graceSeconds))) return;
        // Gone already (the delete found it so)?
        if (region.watch.pods().some((p) => p.metadata?.uid === uid)) await deleted;
      } finally {
        clearTimeout(timer);
        this.ending.delete(uid);
      }
    })();
    this.ending.set(uid, { done, gone });
    return done;
  }

  /** Before starting the server here: a pod of it another instance watches must have ended, and is removed first. */
  private async awaitUnwatchedGone(serverId: string, pod: V1Pod): Promise<void> {
    const name = pod.metadata?.name;
    if (!outcomeOf(pod) && !pod.metadata?.deletionTimestamp) {
      throw new Error(`server ${serverId} is already running (pod ${name}, watched by another servers replica)`);
    }
    await this.endUnwatched(serverId, 1);
    if (this.unwatchedPod(serverId)?.pod.metadata?.uid === pod.metadata?.uid) throw new Error(`server ${serverId}: its previous pod ${name} is still terminating`);
  }

  /** A pod of the server in the regions' watches that this instance does not watch. */
  private unwatchedPod(serverId: string): { region: Region; pod: V1Pod } | undefined {
    if (this.machines.has(serverId)) return undefined;
    for (const region of this.regions.values()) {
      const pod = region.watch.pods().find((p) => serverIdOf(p) === serverId && p.metadata?.uid);
      if (pod) return { region, pod };
    }
    return undefined;
  }

  private pendingTimeout(machine: Machine): void {
    if (machine.gameStarted || machine.exited || machine.stopRequested) return;
    machine.exitReason = 'STARTUP_FAILURE_TIMEOUT';
    this.platformLog(machine.serverId, 'error', `the game did not start within ${this.settings.pendingTimeoutMs} ms (${pendingWhy(machine.pod)}), removing the server`);
    void this.deletePod(machine.region, machine.pod ?? { metadata: { name: machine.podName, uid: machine.uid } }, 1);
  }

  private startupTimeout(machine: Machine): void {
    if (machine.portsBound || machine.exited || machine.stopRequested) return;
    machine.exitReason = 'STARTUP_FAILURE_TIMEOUT';
    const ports = portsOf(machine.pod).map((p) => `${p.internalPort}/${p.protocol}`).join(', ');
    this.platformLog(machine.serverId, 'error', `ports ${ports || '(none)'} not bound within ${this.settings.startupTimeoutMs} ms, killing the server`);
    void this.deletePod(machine.region, machine.pod ?? { metadata: { name: machine.podName, uid: machine.uid } }, 1);
  }

  // --- helpers ---------------------------------------------------------------------------------

  private regionFor(serverId: string, region: string | undefined): Region {
    if (region !== undefined) {
      const found = this.regions.get(region);
      if (!found) throw new Error(`server ${serverId}: region ${region} has no cluster configured for the kubernetes runtime`);
      return found;
    }
    if (this.regions.size === 1) return [...this.regions.values()][0];
    throw new Error(`server ${serverId}: allocatePorts needs the region when several regions are configured`);
  }

  /** Host ports held by live pods of the region, whoever started them. */
  private busyPorts(region: Region): Set<number> {
    const busy = new Set<number>();
    for (const pod of region.watch.pods()) {
      if (outcomeOf(pod)) continue;
      for (const port of portsOf(pod)) busy.add(port.externalPort);
      for (const container of pod.spec?.containers ?? []) for (const port of container.ports ?? []) if (port.hostPort) busy.add(port.hostPort);
    }
    return busy;
  }

  /** A spec started again after its ports were released (a region without hosts): the node whose address its ports carry. */
  private async nodeAt(spec: MachineSpec, region: Region): Promise<string> {
    const hosts = nodeHostsOf(spec, region.settings);
    const node = (await this.listNodes(region)).find((n) => hosts.has(nodeAddress(n) ?? ''));
    if (!node) throw new Error(`server ${spec.serverId}: no node of region ${region.name} has the address ${[...hosts].join(', ')} its ports were given`);
    return node.metadata!.name!;
  }

  /** The ready, schedulable node (of the region's node selector, its taints tolerated) running the fewest of its games. */
  private async pickNode(region: Region): Promise<{ name: string; address: string }> {
    const candidates = (await this.listNodes(region)).filter((node) =>
      isReady(node) && !node.spec?.unschedulable && tolerates(region.settings.tolerations ?? [], node.spec?.taints ?? []) && nodeAddress(node));
    if (candidates.length === 0) {
      const selector = labelSelector(region.settings.nodeSelector);
      throw new Error(`region ${region.name}: no ready, schedulable node${selector ? ` matching ${selector}` : ''} to run the game on `
        + '(the region has no tcpHost/udpHost, so players get the address of the node the game runs on)');
    }
    const load = new Map<string, number>();
    const count = (node: string | undefined) => { if (node) load.set(node, (load.get(node) ?? 0) + 1); };
    for (const pod of region.watch.pods()) if (!outcomeOf(pod)) count(pod.spec?.nodeName ?? pinnedNode(pod));
    for (const [serverId, node] of this.placements) if (!this.machines.has(serverId)) count(node);
    const [best] = candidates.sort((a, b) => (load.get(a.metadata!.name!) ?? 0) - (load.get(b.metadata!.name!) ?? 0) || a.metadata!.name!.localeCompare(b.metadata!.name!));
    return { name: best.metadata!.name!, address: nodeAddress(best)! };
  }

  private async listNodes(region: Region): Promise<V1Node[]> {
    const selector = labelSelector(region.settings.nodeSelector);
    try {
      return (await region.core.listNode(selector ? { labelSelector: selector } : {})).items;
    } catch (err) {
      throw new Error(`kubernetes: could not list the nodes of region ${region.name} (it has no tcpHost/udpHost: players get the game's node address): ${describeApiError(err)}`, { cause: err });
    }
  }

  private defaultKubeConfig(): KubeConfig {
    const kubeConfig = new this.client.KubeConfig();
    kubeConfig.loadFromDefault();
    return kubeConfig;
  }

  private withContext(base: KubeConfig, region: string, context: string): KubeConfig {
    if (!base.getContextObject(context)) {
      throw new Error(`region ${region}: kubeconfig context ${context} not found (known: ${base.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    }
    const kubeConfig = new this.client.KubeConfig();
    kubeConfig.loadFromOptions({ clusters: base.clusters, users: base.users, contexts: base.contexts, currentContext: context });
    return kubeConfig;
  }

  /** A line from the platform about the server, shown with its logs so users see why it stopped. */
  private platformLog(serverId: string, level: 'warn' | 'error', message: string): void {
    this.emit({ type: 'log', entry: { serverId, timestamp: new Date(), stream: 'stderr', level, message: `spawnpoint: ${message}` } });
  }

  private emit(event: MachineEvent): void {
    emitTo(this.listeners, event);
  }
}

interface PodPortNote {
  name: string;
  protocol: string;
  internalPort: number;
  externalPort: number;
}

/** The ports podFor recorded on the pod. */
function portsOf(pod: V1Pod | undefined): PodPortNote[] {
  const note = pod?.metadata?.annotations?.[ANNOTATION_PORTS];
  if (!note) return [];
  try {
    const ports = JSON.parse(note);
    return Array.isArray(ports) ? ports : [];
  } catch {
    return [];
  }
}

/**
 * What players are told for a node: its ExternalIP, else its InternalIP (the pod's status.hostIP); host
 * ports answer on the node's addresses.
 */
export function nodeAddress(node: V1Node): string | undefined {
  const addresses = node.status?.addresses ?? [];
  return (addresses.find((a) => a.type === 'ExternalIP') ?? addresses.find((a) => a.type === 'InternalIP'))?.address || undefined;
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** Whether the tolerations let a pod onto a node with these taints (the scheduling effects only). */
export function tolerates(tolerations: V1Toleration[], taints: V1Taint[]): boolean {
  return taints.filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute').every((taint) => tolerations.some((t) =>
    (!t.effect || t.effect === taint.effect)
    && (t.operator === 'Exists' ? (!t.key || t.key === taint.key) : t.key === taint.key && (t.value ?? '') === (taint.value ?? ''))));
}

/** The hosts of a spec's ports that are node addresses (their protocol has no host in the region). */
function nodeHostsOf(spec: MachineSpec, region: KubernetesRegionSettings): Set<string> {
  return new Set(spec.ports.filter((p) => !(p.protocol === 'tcp' ? region.tcpHost : region.udpHost)).map((p) => p.host));
}

/** The node a pod is pinned to by podFor's placement, before it is scheduled. */
function pinnedNode(pod: V1Pod): string | undefined {
  const term = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0];
  return term?.matchFields?.find((f) => f.key === 'metadata.name' && f.operator === 'In')?.values?.[0];
}

const byNumber = (a: number, b: number) => a - b;

function randomPortIn([low, high]: [number, number]): number {
  return low + Math.floor(Math.random() * (high - low + 1));
}

function labelSelector(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {}).map(([key, value]) => `${key}=${value}`).join(',');
}

/** A timestamp from a typed list (Date) or a raw watch event (string), in ms. */
function timeOf(value: Date | string | undefined): number | null {
  if (!value) return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : ms;
}

/** What a pod that has not started is waiting for, in words. */
function pendingWhy(pod: V1Pod | undefined): string {
  if (!pod) return 'no pod status yet';
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') return `not scheduled: ${scheduled.message ?? scheduled.reason ?? 'no node fits'}`;
  for (const status of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    const waiting = status.state?.waiting;
    if (waiting?.reason) return `${status.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
    if (status.state?.running && status.name !== GAME_CONTAINER) return `${status.name} still running`;
  }
  return `phase ${pod.status?.phase ?? 'Pending'}`;
}
