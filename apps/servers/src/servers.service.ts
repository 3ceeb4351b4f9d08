// The servers service: the Server aggregate, the game runtime (process or pods) and its reports
// turned into commands, TTLs, and the servers read model.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  applyPlan, conflict, DomainError, invalid, NetworkPort, notFound, PLAN_LIMITS, serverDecider, ServerCommand, ServerEvent, ServerLaunch, ServerState, serverStream, STOP_REASONS, StopReason, ttlDeadline,
} from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { COMMAND_ID_HEADER } from '@spawnpoint/messaging';
import { decodeTimeCursor, encodeTimeCursor, Handlers, idFromCommand, KeyedLane, Platform, PLATFORM, ServiceHost, StateCache, ViewCache } from '@spawnpoint/platform';
import {
  GetServerRequest, ListServersRequest, ProjectView, ResolvedBuild, RestartServerRequest, ServerList, ServerView, signArtifactUrl, StartServerRequest,
  StopServerRequest, SUBJECTS, UpdateServerRequest, UsesBuildRequest,
} from '@spawnpoint/proto';
import { AllocatedPort, buildGameEnv, GameRuntime, MachineEvent, MachineSpec, PortSpec, splitArgs } from '@spawnpoint/runtime';
import { LogAttribution } from './log-attribution';
import { LogWriter } from './log-writer';
import { logHandlers } from './logs/logs.handlers';
import { PlanAdmission } from './plan-admission';
import { PoolHost, PoolManager } from './pools/pool-manager';
import { reconcileMachines, recordShutdown } from './reconcile-machines';
import { stateView, toServerView } from './server-view';
import { serversProjection } from './servers.projection';
import { TtlTimers } from './ttl-timers';

export const RUNTIME = Symbol('RUNTIME');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ACTIVE = ['launching', 'running'];
/** Events after which a server's TTL deadline may have moved. */
const TTL_EVENTS = new Set<ServerEvent['type']>(['ServerRunning', 'ServerPoolClaimed', 'ServerRestarted', 'ServerStopped']);

@Injectable()
export class ServersService extends ServiceHost {
  private readonly logs: LogWriter;
  /** GET /servers/{id} is the hottest read (game servers and clients poll it): served from memory. */
  private readonly views = new ViewCache<{ projectId: string; view: ServerView }>();
  private readonly lane = new KeyedLane();
  /**
   * Server states as this process last wrote or read them: commands decide on them without reading the
   * stream (a stale one fails on its revision and is read again), loads read only the stream's tail.
   */
  private readonly servers: StateCache<ServerCommand, ServerEvent, ServerState>;
  private readonly ttl = new TtlTimers((id) => void this.expire(id));
  /** The machine spec of each server this process runs: what a crash restart starts again. */
  private readonly machines = new Map<string, MachineSpec>();
  private readonly pools: PoolManager;
  private readonly logOwners: LogAttribution;
  private readonly admission: PlanAdmission;
  private unwatch: (() => void) | null = null;

  constructor(@Inject(PLATFORM) platform: Platform, @Inject(RUNTIME) private readonly runtime: GameRuntime) {
    super(platform, 'servers', ['server']);
    this.servers = new StateCache(platform.store, serverDecider);
    this.logOwners = new LogAttribution(
      (id) => this.machines.get(id)?.projectId,
      async (id) => (UUID.test(id) ? ((await this.db.server.findUnique({ where: { id }, select: { projectId: true } }))?.projectId ?? null) : null),
    );
    this.logs = new LogWriter(platform.db);
    this.pools = new PoolManager(this.poolHost(), platform.db, platform.bus);
    this.admission = new PlanAdmission(platform.config.databaseUrl);
  }

  protected readModels() {
    return [{ ...serversProjection, applied: (event: RecordedEvent) => this.applied(event) }];
  }

  protected override handlers(): Handlers {
    return {
      [SUBJECTS.servers.start]: (r: StartServerRequest, ctx) => this.start(r, ctx.headers[COMMAND_ID_HEADER]),
      [SUBJECTS.servers.get]: (r: GetServerRequest) => this.get(r),
      [SUBJECTS.servers.list]: (r: ListServersRequest) => this.list(r),
      [SUBJECTS.servers.stop]: (r: StopServerRequest) => this.stop(r),
      [SUBJECTS.servers.restart]: (r: RestartServerRequest) => this.restart(r),
      [SUBJECTS.servers.update]: (r: UpdateServerRequest) => this.update(r),
      [SUBJECTS.servers.usesBuild]: (r: UsesBuildRequest) => this.usesBuild(r),
      ...logHandlers({ db: this.db, runtime: this.runtime, getServer: (projectId, serverId) => this.get({ projectId, serverId }), now: () => this.clock() }),
    };
  }

  protected override async starting(): Promise<void> {
    this.unwatch = this.runtime.watch((e) => void this.onMachineEvent(e));
    await this.reconcile();
    await this.pools.start();
  }

  protected override async stopping(): Promise<void> {
    this.pools.stop();
    this.ttl.clearAll();
    this.unwatch?.();
    // Local games end with this process (pods outlive it and are adopted): recorded stopped, not left running.
    if (this.runtime.kind === 'process') await recordShutdown(this.runtime.running(), (id) => this.servers.execute(serverStream(id), { type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: this.now() }, {}, { optimistic: true }));
    await this.runtime.close();
    await this.logs.flush();
    await this.admission.close();
  }

  /**
   * `commandId` (a gateway write's): the new server's id is derived from it, so a start sent again after
   * its answer was lost (the service even restarted meanwhile) answers the server it started, not a second one.
   */
  async start(req: StartServerRequest, commandId?: string): Promise<ServerView> {
    const serverId = commandId ? idFromCommand('server', req.projectId, commandId) : randomUUID();
    if (commandId && (await this.servers.load(serverStream(serverId))).state.status !== 'none') return this.get({ projectId: req.projectId, serverId, fresh: true });
    const project = await this.project(req.projectId);
    // A capped plan counts active servers: its starts run one at a time (PlanAdmission).
    if (PLAN_LIMITS[project.plan].maxActiveServers === null) return this.startAdmitted(req, project, serverId);
    return this.admission.run(project.projectId, () => this.startAdmitted(req, project, serverId));
  }

  private async startAdmitted(req: StartServerRequest, project: ProjectView, serverId: string): Promise<ServerView> {
    const body = req.body;
    const computeSize = body.compute_size ?? 'small';
    const ttl = applyPlan({ plan: project.plan, computeSize, ttl: body.ttl ?? null, activeServers: await this.activeCount(project) });
    const matchId = body.match_id ?? randomUUID();
    const claimed = await this.pools.claim(project, body, { name: body.name, customData: body.custom_data ?? null, ttl, matchId });
    if (claimed) {
      // Answered from the claimed state at once; reads of this server wait until the read model shows the
      // claim (read-your-writes without holding the claim's answer behind the refill's projection work).
      this.awaitingClaim(claimed.serverId, claimed.position);
      return stateView(claimed.state);
    }
    const versionTag = body.version_tag ?? 'default';
    const build = await this.resolveBuild(req.projectId, versionTag, body.version ?? null);
    const { position } = await this.createServer(project, build, body.port_configs ?? project.settings.port_configs, {
      name: body.name, region: body.region, computeSize, versionTag, startupArgs: body.startup_args ?? null, serviceType: body.service_type ?? 'match_based',
      autoRestart: body.auto_restart ?? false, customData: body.custom_data ?? null, ttl, matchId, environmentVariables: body.environment_variables ?? {},
      isPoolServer: false,
    }, serverId);
    await this.projections.waitFor(position, serverStream(serverId));
    return this.get({ projectId: req.projectId, serverId });
  }

  /** A new server: ports reserved, ServerStarted appended, the game spawned. The reply waits elsewhere. */
  private async createServer(
    project: ProjectView,
    build: ResolvedBuild,
    ports: { name: string; internal_port: number; protocol: 'udp' | 'tcp'; tls_enabled?: boolean }[],
    fields: Omit<ServerLaunch, 'serverId' | 'projectId' | 'networkPorts' | 'buildId' | 'version'>,
    serverId: string = randomUUID(),
  ): Promise<{ serverId: string; position: bigint | null }> {
    const allocated = await this.runtime.allocatePorts(serverId, portSpecs(ports), fields.region);
    const launch: ServerLaunch = {
      ...fields, serverId, projectId: project.projectId, networkPorts: networkPorts(allocated), buildId: build.buildId, version: build.version,
    };
    let position: bigint | null;
    try {
      ({ position } = await this.servers.execute(serverStream(serverId), { type: 'StartServer', now: this.now(), ...launch }, { projectId: project.projectId }, { optimistic: true }));
    } catch (err) {
      await this.runtime.releasePorts(serverId);
      throw err;
    }
    await this.lane.run(serverId, () => this.launchMachine(launch, build, allocated, project));
    return { serverId, position };
  }

  private poolHost(): PoolHost {
    return {
      project: (projectId) => this.project(projectId),
      resolveBuild: (projectId, name, version) => this.resolveBuild(projectId, name, version),
      startPoolServer: async (project, region, computeSize, build) => {
        try {
          const { serverId, position } = await this.createServer(project, build, project.settings.port_configs, {
            name: `pool-${region}`, region, computeSize, versionTag: build.name, startupArgs: null, serviceType: 'match_based', autoRestart: false,
            customData: null, ttl: null, matchId: randomUUID(), environmentVariables: {}, isPoolServer: true,
          });
          // The next reconcile counts pool servers from the read model: this one must be in it.
          await this.projections.waitFor(position, serverStream(serverId));
        } catch (err) {
          console.error('pools: starting a pool server failed', err);
        }
      },
      stopPoolServer: async (serverId) => {
        await this.command(this.servers, serverStream(serverId), { type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: this.now() }).catch(() => undefined);
      },
      claim: async (projectId, serverId, claim) => {
        try {
          const { position, state } = await this.servers.execute(serverStream(serverId), { type: 'ClaimPoolServer', ...claim, now: this.now() }, { projectId }, { optimistic: true });
          return { position, state };
        } catch (err) {
          if (err instanceof DomainError && err.code === 'conflict') return null;
          throw err;
        }
      },
    };
  }

  /**
   * Same instance id, a new machine with new ports; overrides apply, the rest stays. The whole restart
   * (old machine down, ports, the event, the new machine) is one step of the server's lane, decided on
   * the state read inside it: overlapping restarts run one after the other, each on the machine the
   * previous one left, so exactly one machine runs at the end.
   */
  async restart(req: RestartServerRequest): Promise<ServerView> {
    await this.get(req); // 404 for another project's server
    const project = await this.project(req.projectId);
    await this.lane.run(req.serverId, () => this.restartInLane(req, project));
    return this.get(req);
  }

  private async restartInLane(req: RestartServerRequest, project: ProjectView): Promise<void> {
    const stream = serverStream(req.serverId);
    const { state } = await this.servers.load(stream);
    if (state.status === 'none') throw notFound('server');
    if (state.isPoolServer) throw conflict('pool servers cannot be restarted; stop it and start a new one');
    const o = req.body;
    const ttl = applyPlan({
      plan: project.plan, computeSize: state.computeSize, ttl: o.ttl !== undefined ? o.ttl : state.ttl,
      activeServers: state.status === 'stopped' ? await this.activeCount(project) : 0,
    });
    const versionTag = o.version_tag ?? state.versionTag;
    // Without a new tag or version the server keeps its build version; a new tag alone means its latest.
    const version = o.version !== undefined ? o.version : o.version_tag !== undefined ? null : state.version;
    const build = await this.resolveBuild(req.projectId, versionTag, version);
    const ports = o.port_configs ?? state.networkPorts.map((p) => ({ name: p.name, internal_port: p.internal_port, protocol: p.protocol, tls_enabled: p.tls_enabled }));
    await this.teardownMachine(req.serverId);
    const allocated = await this.runtime.allocatePorts(req.serverId, portSpecs(ports), state.region);
    let next: ServerState;
    try {
      ({ state: next } = await this.command(this.servers, stream, {
        type: 'RestartServer', networkPorts: networkPorts(allocated), buildId: build.buildId, version: build.version, now: this.now(),
        overrides: {
          ...(o.name !== undefined ? { name: o.name } : {}),
          ...(o.startup_args !== undefined ? { startupArgs: o.startup_args } : {}),
          ...(o.version_tag !== undefined ? { versionTag } : {}),
          ...(ttl !== state.ttl ? { ttl } : {}),
          ...(o.auto_restart !== undefined ? { autoRestart: o.auto_restart } : {}),
          ...(o.custom_data !== undefined ? { customData: o.custom_data } : {}),
          ...(o.match_id !== undefined ? { matchId: o.match_id } : {}),
          ...(o.environment_variables !== undefined ? { environmentVariables: o.environment_variables } : {}),
        },
      }, { projectId: req.projectId }));
    } catch (err) {
      await this.runtime.releasePorts(req.serverId);
      throw err;
    }
    await this.launchMachine(next as ServerLaunch, build, allocated, project);
  }

  async update(req: UpdateServerRequest): Promise<ServerView> {
    await this.get(req);
    await this.command(this.servers, serverStream(req.serverId), { type: 'UpdateCustomData', customData: req.customData, now: this.now() }, { projectId: req.projectId });
    return this.get(req);
  }

  /** Claims answered before the servers read model shows them: server id → the claim's position. */
  private readonly unseenClaims = new Map<string, bigint>();

  private awaitingClaim(serverId: string, position: bigint | null): void {
    if (position === null) return;
    this.unseenClaims.set(serverId, position);
    void this.projections.waitFor(position, serverStream(serverId)).catch(() => undefined).finally(() => {
      if (this.unseenClaims.get(serverId) === position) this.unseenClaims.delete(serverId);
    });
  }

  /** Before a read: wait for the claims it could see (one server's, or all for a list). */
  private async claimsSeen(serverId?: string): Promise<void> {
    if (this.unseenClaims.size === 0) return;
    const positions = serverId ? [this.unseenClaims.get(serverId)].filter((p) => p !== undefined) : [...this.unseenClaims.values()];
    if (positions.length === 0) return;
    const last = positions.reduce((a, b) => (a > b ? a : b));
    await this.projections.waitFor(last, serverStream(serverId ?? [...this.unseenClaims.keys()][0]));
  }

  async get(req: GetServerRequest): Promise<ServerView> {
    await this.claimsSeen(req.serverId);
    if (req.fresh) await this.projections.waitForHead(serverStream(req.serverId));
    const found = UUID.test(req.serverId)
      ? await this.views.get(req.serverId, async () => {
          const s = await this.db.server.findUnique({ where: { id: req.serverId } });
          return s ? { projectId: s.projectId, view: toServerView(s) } : null;
        })
      : null;
    if (!found || found.projectId !== req.projectId) throw notFound('server');
    return found.view;
  }

  async list(req: ListServersRequest): Promise<ServerList> {
    await this.claimsSeen();
    const limit = req.limit ?? 50;
    const cursor = req.next_token ? decodeTimeCursor(req.next_token, UUID) : null;
    if (req.next_token && !cursor) throw invalid('invalid next_token', [{ loc: ['query', 'next_token'], msg: 'invalid pagination token', type: 'value_error' }]);
    const rows = await this.db.server.findMany({
      where: {
        projectId: req.projectId,
        ...(req.status ? { status: req.status } : {}),
        ...(req.region ? { region: req.region } : {}),
        ...(req.version_tag ? { versionTag: req.version_tag } : {}),
        ...(req.match_id ? { matchId: req.match_id } : {}),
        ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { servers: page.map(toServerView), next_token: rows.length > limit && last ? encodeTimeCursor({ at: last.createdAt, id: last.id }) : null };
  }

  /** Records the stop and answers; the machine is torn down when the stop is applied (see applied()). */
  async stop(req: StopServerRequest): Promise<ServerView> {
    await this.get(req); // 404 for another project's server
    const reason = (req.reason ?? 'SHUTDOWN_SIGNAL') as StopReason;
    if (!STOP_REASONS.includes(reason)) throw invalid('invalid shutdown_reason', ['query', 'shutdown_reason'], 'enum');
    await this.command(this.servers, serverStream(req.serverId), { type: 'StopServer', reason, now: this.now() }, { projectId: req.projectId });
    return this.get(req);
  }

  async usesBuild(req: UsesBuildRequest): Promise<{ inUse: boolean }> {
    const n = await this.db.server.count({ where: { projectId: req.projectId, buildId: req.buildId, status: { in: ACTIVE } } });
    return { inUse: n > 0 };
  }

  /** After each server event is in the read model: refresh the cached view, TTL, and tear down stopped machines. */
  private applied(event: RecordedEvent): void {
    const e = { type: event.type, data: event.data } as ServerEvent;
    const serverId = e.data.serverId;
    this.views.invalidate(serverId);
    this.pools.onEvent(e);
    if (e.type === 'ServerStopped') {
      this.ttl.clear(serverId);
      // Only if still stopped when its turn comes: a restart queued before it may have started a new machine.
      void this.lane.run(serverId, async () => {
        if ((await this.servers.load(serverStream(serverId), event.revision)).state.status === 'stopped') await this.teardownMachine(serverId);
      }).catch((err) => console.error(`servers: teardown of ${serverId} failed`, err));
    } else if (TTL_EVENTS.has(e.type)) {
      void this.refreshTtl(serverId, event.revision);
    }
  }

  /** `revision`: the applied event's (a cached state that has it needs no read). */
  private async refreshTtl(serverId: string, revision: number): Promise<void> {
    try {
      const { state } = await this.servers.load(serverStream(serverId), revision);
      this.ttl.set(serverId, ttlDeadline(state));
    } catch (err) {
      console.error(`servers: ttl of ${serverId}`, err);
    }
  }

  private async expire(serverId: string): Promise<void> {
    try {
      await this.servers.execute(serverStream(serverId), { type: 'StopServer', reason: 'TTL_EXPIRED', now: this.now() }, {}, { optimistic: true });
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'conflict')) console.error(`servers: ttl stop of ${serverId} failed`, err);
    }
  }

  private async launchMachine(launch: ServerLaunch, build: ResolvedBuild, allocated: AllocatedPort[], project: ProjectView): Promise<void> {
    const spec: MachineSpec = {
      serverId: launch.serverId, projectId: launch.projectId, buildDir: build.dir ?? undefined, executablePath: build.executablePath ?? undefined,
      image: build.image ?? undefined, args: splitArgs(launch.startupArgs), computeSize: launch.computeSize, region: launch.region, ports: allocated,
      env: buildGameEnv({
        instanceId: launch.serverId, matchId: launch.matchId, region: launch.region, computeSize: launch.computeSize, versionTag: launch.versionTag,
        version: launch.version, customData: launch.customData, ports: allocated, projectEnv: project.settings.environment_variables,
        requestEnv: launch.environmentVariables,
      }),
    };
    if (this.runtime.kind === 'kubernetes' && build.kind === 'zip') {
      // Pods cannot read the build directory: they download it from the gateway's signed artifact URL.
      // A crash restart starts this same spec again, possibly after an hour: every read signs afresh.
      const { artifactBaseUrl: baseUrl, artifactSecret: secret } = this.config;
      Object.defineProperty(spec, 'artifactUrl', {
        enumerable: true, configurable: true,
        get: () => signArtifactUrl({ baseUrl, secret, buildId: build.buildId, now: this.clock() }).url,
      });
    }
    this.machines.set(launch.serverId, spec);
    try {
      await this.runtime.start(spec);
    } catch (err) {
      await this.recordExit(launch.serverId, 'START_FAILED', null);
      throw new DomainError('conflict', `the game server could not be started: ${(err as Error).message}`);
    }
  }

  /** Stop the machine (if this process runs it) and give its ports back. Idempotent. */
  private async teardownMachine(serverId: string): Promise<void> {
    await this.runtime.stop(serverId);
    await this.runtime.releasePorts(serverId);
    this.machines.delete(serverId);
    this.logOwners.forget(serverId);
  }

  private async onMachineEvent(event: MachineEvent): Promise<void> {
    try {
      if (event.type === 'log') {
        const owner = this.logOwners.projectOf(event.entry.serverId);
        const projectId = typeof owner === 'string' ? owner : await owner;
        if (projectId) this.logs.add(projectId, event.entry);
      } else if (event.type === 'ports_bound') {
        await this.servers.execute(serverStream(event.serverId), { type: 'MarkRunning', now: event.at.toISOString() }, {}, { optimistic: true });
      } else if (event.type === 'exited' && event.reason !== 'SHUTDOWN_SIGNAL') {
        // SHUTDOWN_SIGNAL exits are ours (stop, restart): whoever stopped the machine handles the rest.
        const { events } = await this.recordExit(event.serverId, event.reason, event.exitCode, event.at);
        const spec = this.machines.get(event.serverId);
        if (events[0]?.type === 'ServerCrashed' && spec) {
          await this.lane.run(event.serverId, () => this.runtime.start(spec)).catch(() => this.recordExit(event.serverId, 'START_FAILED', null));
        } else if (events[0]?.type === 'ServerCrashed') {
          // An adopted machine whose spec this process never knew cannot be started again: stopped, never stuck launching.
          await this.servers.execute(serverStream(event.serverId), { type: 'StopServer', reason: 'PROCESS_EXITED', now: this.now() }, {}, { optimistic: true });
        }
      }
    } catch (err) {
      console.error(`servers: handling ${event.type} failed`, err);
    }
  }

  private recordExit(serverId: string, reason: StopReason, exitCode: number | null, at = this.clock()) {
    return this.servers.execute(serverStream(serverId), { type: 'RecordExit', reason, exitCode, now: at.toISOString() }, {}, { optimistic: true });
  }

  /** After a restart of this service: machines adopted or torn down, lost servers stopped, TTL timers rebuilt (reconcile-machines.ts). */
  private async reconcile(): Promise<void> {
    await reconcileMachines({
      runtime: this.runtime,
      activeServerIds: async () => (await this.db.server.findMany({ where: { status: { in: ACTIVE } }, select: { id: true } })).map((s) => s.id),
      load: async (id) => (await this.servers.load(serverStream(id))).state,
      recordLost: async (id) => void (await this.recordExit(id, 'MACHINE_LOST', null)),
      adopted: (id, spec, state) => {
        if (spec) this.machines.set(id, spec);
        this.ttl.set(id, ttlDeadline(state));
      },
      log: (projectId, entry) => this.logs.add(projectId, entry),
    });
  }

  private project(projectId: string): Promise<ProjectView> {
    return this.bus.request<ProjectView>(SUBJECTS.projects.get, { projectId });
  }

  private async activeCount(project: ProjectView): Promise<number> {
    if (PLAN_LIMITS[project.plan].maxActiveServers === null) return 0;
    return this.db.server.count({ where: { projectId: project.projectId, status: { in: ACTIVE } } });
  }

  private async resolveBuild(projectId: string, name: string, version: number | null): Promise<ResolvedBuild> {
    const build = await this.bus.request<ResolvedBuild>(SUBJECTS.builds.resolve, { projectId, name, version });
    if (build.kind === 'image' && this.runtime.kind === 'process') {
      throw invalid('this deployment runs game servers as local processes and cannot start container image builds', [
        { loc: ['body', 'version_tag'], msg: 'build is a container image; the process runtime runs ZIP builds only', type: 'value_error' },
      ]);
    }
    return build;
  }
}

function portSpecs(ports: { name: string; internal_port: number; protocol: 'udp' | 'tcp'; tls_enabled?: boolean }[]): PortSpec[] {
  return ports.map((p) => ({ name: p.name, internalPort: p.internal_port, protocol: p.protocol, tlsEnabled: p.tls_enabled ?? false }));
}

function networkPorts(allocated: AllocatedPort[]): NetworkPort[] {
  return allocated.map((p) => ({
    name: p.name, internal_port: p.internalPort, external_port: p.externalPort, protocol: p.protocol, host: p.host, tls_enabled: p.tlsEnabled,
  }));
}

