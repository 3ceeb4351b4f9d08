// Keeps every project's pool topped up and hands ready pool servers to start requests. The ready
// index is kept from server events; a claim is decided on the pool server's stream, so across any
// number of requests and replicas no pool server is claimed twice. Reconciles run one at a time per
// project, after pool or build changes, after claims, and on a periodic tick.
import { Admission, PLAN_LIMITS, planPool, PoolConfig, PoolMember, ServerEvent, ServerState } from '@spawnpoint/domain';
import { Bus, IntegrationEvent } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { integrationEventName, parseBusEvent, PoolCapacityView, ProjectView, QueueStatsBroadcast, ResolvedBuild, StartServerBody, SUBJECTS, validListener } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { countPoolClaim, KeyedLane } from '@spawnpoint/platform';
import { poolCapacity } from './pool-capacity';
import { poolFor, poolKey } from './pool-claim';
import { PoolDemandSignals } from './pool-demand-signals';

const log = logger('pools');

/** `ttl`: the one asked for; `admission`: the plan's inputs, for the Server decider to give the claim its ttl or refuse it. */
export interface PoolClaim {
  name: string; customData: Record<string, unknown> | null; ttl: number | null; matchId: string; startKey?: string; admission?: Admission;
  /** The pool's claim lease (claim_lease_seconds). */
  leaseSeconds?: number;
}

/** What the pool manager needs of the servers service. */
export interface PoolHost {
  project(projectId: string): Promise<ProjectView>;
  resolveBuild(projectId: string, name: string, version: number | null): Promise<ResolvedBuild>;
  startPoolServer(project: ProjectView, region: string, computeSize: string, build: ResolvedBuild): Promise<void>;
  stopPoolServer(serverId: string): Promise<void>;
  /** Claims the server: the append position and the claimed state, or null when someone else got it first. */
  claim(projectId: string, serverId: string, claim: PoolClaim): Promise<{ position: bigint | null; state: ServerState } | null>;
}

const TICK_MS = 5_000;
const START_CONCURRENCY = 2;
/** Pool servers started per reconcile round; the next round (at once) continues. Keeps claims responsive during refills. */
const STARTS_PER_ROUND = 8;
/**
 * Claims come first: while they keep arriving, refill waits until they pause (CLAIM_QUIET_MS), but never
 * longer than CLAIM_REFILL_MAX_WAIT_MS, and not at all once fewer than a quarter of min_ready are ready.
 */
const CLAIM_QUIET_MS = 200;
const CLAIM_REFILL_MAX_WAIT_MS = 2_000;

export class PoolManager {
  /** Ready (running, unclaimed) pool servers per pool key, oldest first. */
  private readonly ready = new Map<string, string[]>();
  /** Unclaimed active pool servers, kept from server events: what each reconcile plans over. */
  private readonly members = new Map<string, PoolMember & { projectId: string; key: string }>();
  /** The build version each project's pool runs now, from its last reconcile. */
  private readonly targets = new Map<string, number>();
  /** Each project's pool regions and their min_ready, from its last reconcile (the metrics' pool targets). */
  private readonly configured = new Map<string, Record<string, number>>();
  private readonly lane = new KeyedLane();
  private readonly queued = new Set<string>();
  /** Refills waiting for claims to pause, per project. */
  private readonly refills = new Map<string, { timer: NodeJS.Timeout; since: number }>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Demand per pool region (regions sized by demand follow it; issue 38). */
  readonly demand = new PoolDemandSignals();
  /** Projects whose pool has a region sized by demand, from their last reconcile. */
  private readonly byDemand = new Set<string>();
  /** Each project's pool config and what each region was sized to at its last reconcile (GET /v3/pools). */
  private readonly sized = new Map<string, { config: PoolConfig; desired: Record<string, number> }>();

  /** `now`: the injected clock (ms), for the refill debounce. */
  constructor(private readonly host: PoolHost, private readonly db: ReadModels, private readonly bus: Bus, private readonly now: () => number) {}

  async start(): Promise<void> {
    const rows = await this.db.server.findMany({ where: { isPoolServer: true, poolClaimedAt: null, status: { in: ['launching', 'running'] } }, orderBy: { createdAt: 'asc' } });
    for (const r of rows) this.addMember(r);
    await this.bus.consume(
      { durable: 'servers-pools', filters: ['project.ProjectSettingsUpdated', 'project.ProjectPlanChanged', 'build.BuildReady', 'build.BuildImageRegistered', 'build.BuildDeleted'] },
      (e: IntegrationEvent) => {
        const data = parseBusEvent<{ projectId?: string }>(integrationEventName(e), e.data);
        const projectId = data.projectId ?? (e.metadata.projectId as string | undefined);
        if (projectId) this.schedule(projectId);
      },
    );
    // The matcher's queue figures: a demand-sized pool grows as matches form, before they claim.
    await this.bus.listen(SUBJECTS.matchmaking.queueStats, validListener<QueueStatsBroadcast>(SUBJECTS.matchmaking.queueStats, (b) => {
      for (const projectId of this.demand.queueFigures(b, this.now())) if (this.byDemand.has(projectId)) this.schedule(projectId);
    }));
    this.timer = setInterval(() => void this.reconcileAll(), TICK_MS);
    this.timer.unref();
    void this.reconcileAll();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const { timer } of this.refills.values()) clearTimeout(timer);
    this.refills.clear();
  }

  /** After each server event is in the read model. */
  onEvent(event: ServerEvent): void {
    const id = event.data.serverId;
    if (event.type === 'ServerStarted') {
      const d = event.data;
      if (d.isPoolServer) {
        this.members.set(id, {
          serverId: id, projectId: d.projectId, key: poolKey(d.projectId, d.region, d.version, d.computeSize), region: d.region,
          version: d.version, computeSize: d.computeSize, status: 'launching', createdAt: d.at,
        });
      }
      return;
    }
    if (event.type === 'ServerPoolReleased') {
      // Back in the pool (a lease on a resettable game): ready for the next claim, or replaced when outdated.
      // Its row is in the read model now (this runs after it applied the event): the member is read from it.
      void this.db.server.findUnique({ where: { id } }).then((r) => {
        if (!r || r.status !== 'running' || r.poolClaimedAt !== null) return;
        this.addMember(r);
        this.schedule(r.projectId);
      }).catch((err) => log.error({ err, server_id: id }, 'pools: a released server was not taken back; the next start of the manager will'));
      return;
    }
    const member = this.members.get(id);
    if (!member) return;
    if (event.type === 'ServerRunning') {
      member.status = 'running';
      this.pushReady(member.key, id);
      // A rollout replaces an old server only once a new one is ready: that is now.
      this.schedule(member.projectId);
    } else if (event.type === 'ServerPoolClaimed' || event.type === 'ServerStopped' || event.type === 'ServerCrashed') {
      // The refill is the server-lifecycle workflow's RefillPool (refill() below).
      this.removeReady(member.key, id);
      this.members.delete(id);
    }
  }

  /** Claims a ready pool server for this request; its id and the claim's position, or null (start cold). */
  async claim(project: ProjectView, body: StartServerBody, claim: PoolClaim): Promise<{ serverId: string; position: bigint | null; state: ServerState } | null> {
    const pool = poolFor(project.settings.pool_config, body);
    const version = body.version ?? this.targets.get(project.projectId);
    if (!pool) return null;
    // Demand whether or not a server is ready: a pool at zero must see the starts it could have served.
    this.demand.wanted(project.projectId, body.region, this.now());
    if (version === undefined) return null;
    const queue = this.ready.get(poolKey(project.projectId, body.region, version, pool.compute_size));
    while (queue && queue.length > 0) {
      // Taken off the queue before the claim: concurrent requests in this process try different servers.
      const serverId = queue.shift()!;
      let claimed: Awaited<ReturnType<PoolHost['claim']>>;
      try {
        claimed = await this.host.claim(project.projectId, serverId, claim);
      } catch (err) {
        // Refused for the request (its plan), or not known to be claimed: the server stays ready for the next.
        queue.unshift(serverId);
        throw err;
      }
      if (claimed !== null) {
        const lowWater = Math.ceil((pool.regions[body.region]?.min_ready ?? 0) / 4);
        this.refillAfterClaims(project.projectId, queue.length < lowWater);
        countPoolClaim(body.region, 'claimed');
        return { serverId, ...claimed };
      }
    }
    // The pool serves this request but had no ready server: it starts cold (PoolEmpty's signal).
    countPoolClaim(body.region, 'empty');
    return null;
  }

  /**
   * Each pool region's capacity as of the last reconcile: what it keeps ready and why, and its unclaimed
   * servers now. `claimed`: the active claimed pool servers per region (the caller counts them).
   */
  capacity(projectId: string, claimed: Record<string, number>): PoolCapacityView {
    return poolCapacity({
      sized: this.sized.get(projectId), version: this.targets.get(projectId) ?? null, claimed,
      members: [...this.members.values()].filter((m) => m.projectId === projectId), why: (region) => this.demand.why(projectId, region),
    });
  }

  /** min_ready summed over the projects' pools, by region. */
  minReadyByRegion(): Map<string, number> {
    const out = new Map<string, number>();
    for (const regions of this.configured.values()) for (const [region, n] of Object.entries(regions)) out.set(region, (out.get(region) ?? 0) + n);
    return out;
  }

  schedule(projectId: string): void {
    if (this.stopped || this.queued.has(projectId)) return;
    this.queued.add(projectId);
    void this.lane.run(projectId, async () => {
      this.queued.delete(projectId);
      if (await this.reconcile(projectId)) this.schedule(projectId);
    }).catch((err) => log.error({ err, project_id: projectId }, `pools: reconcile of ${projectId} failed`));
  }

  /** A pool server left the ready pool (the server-lifecycle workflow's RefillPool): refill once claims pause. */
  refill(projectId: string): void {
    this.refillAfterClaims(projectId, false);
  }

  /** A refill once claims pause (debounced, bounded); at once when the ready pool runs low. */
  private refillAfterClaims(projectId: string, urgent: boolean): void {
    const pending = this.refills.get(projectId);
    const since = pending?.since ?? this.now();
    if (pending) clearTimeout(pending.timer);
    if (urgent || this.now() - since >= CLAIM_REFILL_MAX_WAIT_MS) {
      this.refills.delete(projectId);
      this.schedule(projectId);
      return;
    }
    const timer = setTimeout(() => {
      this.refills.delete(projectId);
      this.schedule(projectId);
    }, CLAIM_QUIET_MS);
    timer.unref();
    this.refills.set(projectId, { timer, since });
  }

  private async reconcileAll(): Promise<void> {
    try {
      const withPools = await this.bus.request(SUBJECTS.projects.listPools, {});
      const ids = new Set([...withPools.map((p) => p.projectId), ...[...this.members.values()].map((m) => m.projectId)]);
      for (const id of ids) this.schedule(id);
    } catch (err) {
      log.error({ err }, 'pools: listing pools failed');
    }
  }

  /** One round; true when it left starts for another round. */
  private async reconcile(projectId: string): Promise<boolean> {
    if (this.stopped) return false;
    const project = await this.host.project(projectId);
    const config: PoolConfig | null = PLAN_LIMITS[project.plan].pools ? project.settings.pool_config : null;
    if (config?.enabled) this.configured.set(projectId, Object.fromEntries(Object.entries(config.regions).map(([region, r]) => [region, r.min_ready])));
    else this.configured.delete(projectId);
    let build: ResolvedBuild | null = null;
    if (config?.enabled) {
      build = await this.host.resolveBuild(projectId, config.build_name, config.build_version).catch(() => null);
      if (build) this.targets.set(projectId, build.version);
      else this.targets.delete(projectId);
    }
    const members = [...this.members.values()].filter((m) => m.projectId === projectId);
    const demanded = config?.enabled ? this.demand.targets(projectId, config, this.now()) : {};
    if (Object.keys(demanded).length > 0) {
      this.byDemand.add(projectId);
      // The pool-target gauge shows what a demand-sized region keeps now.
      this.configured.set(projectId, { ...this.configured.get(projectId), ...demanded });
    } else this.byDemand.delete(projectId);
    if (config) this.sized.set(projectId, { config, desired: Object.fromEntries(Object.entries(config.regions).map(([r, c]) => [r, demanded[r] ?? Math.min(c.min_ready, c.max)])) });
    else this.sized.delete(projectId);
    const plan = planPool(config, build?.version ?? null, members, demanded);
    for (const id of plan.stop) await this.host.stopPoolServer(id);
    const starts = plan.start.flatMap(({ region, count }) => Array.from({ length: count }, () => region));
    const round = starts.slice(0, STARTS_PER_ROUND);
    for (let i = 0; i < round.length && build && config; i += START_CONCURRENCY) {
      await Promise.all(round.slice(i, i + START_CONCURRENCY).map((region) => this.host.startPoolServer(project, region, config.compute_size, build!)));
    }
    return starts.length > round.length;
  }

  /** An unclaimed active pool server from its read-model row (at start, and when a claim is released). */
  private addMember(r: { id: string; projectId: string; region: string; version: number | null; computeSize: string; status: string; createdAt: Date }): void {
    const key = poolKey(r.projectId, r.region, r.version, r.computeSize);
    this.members.set(r.id, {
      serverId: r.id, projectId: r.projectId, key, region: r.region, version: r.version, computeSize: r.computeSize,
      status: r.status as PoolMember['status'], createdAt: r.createdAt.toISOString(),
    });
    if (r.status === 'running') this.pushReady(key, r.id);
  }

    private pushReady(key: string, id: string): void {
    const list = this.ready.get(key) ?? [];
    if (!list.includes(id)) list.push(id);
    this.ready.set(key, list);
  }

  private removeReady(key: string, id: string): void {
    const list = this.ready.get(key);
    const i = list?.indexOf(id) ?? -1;
    if (list && i >= 0) list.splice(i, 1);
  }
}
