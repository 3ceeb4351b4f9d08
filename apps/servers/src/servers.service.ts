// The servers service: the Server aggregate, the game runtime (process or pods) and its reports
// turned into commands, and the servers read model.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  applyPlan, DomainError, invalid, NetworkPort, notFound, PLAN_LIMITS, serverDecider, ServerLaunch, serverStream, STOP_REASONS, StopReason,
} from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { execute, Handlers, load, Platform, PLATFORM, ServiceHost, ViewCache } from '@spawnpoint/platform';
import {
  GetServerRequest, ListServersRequest, ProjectView, ResolvedBuild, ServerList, ServerView, StartServerRequest, StopServerRequest,
  SUBJECTS, UsesBuildRequest,
} from '@spawnpoint/proto';
import { buildGameEnv, GameRuntime, MachineEvent, splitArgs } from '@spawnpoint/runtime';
import { decodeCursor, encodeCursor } from './list-cursor';
import { LogWriter } from './log-writer';
import { toServerView } from './server-view';
import { serversProjection } from './servers.projection';

export const RUNTIME = Symbol('RUNTIME');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Injectable()
export class ServersService extends ServiceHost {
  private readonly logs: LogWriter;
  /** GET /servers/{id} is the hottest read (game servers and clients poll it): served from memory. */
  private readonly views = new ViewCache<{ projectId: string; view: ServerView }>();
  private unwatch: (() => void) | null = null;
  /** projectId of each server this process runs (log lines carry it). */
  private readonly owners = new Map<string, string>();

  constructor(@Inject(PLATFORM) platform: Platform, @Inject(RUNTIME) private readonly runtime: GameRuntime) {
    super(platform, 'servers', ['server']);
    this.logs = new LogWriter(platform.db);
  }

  protected readModels() {
    return [{ ...serversProjection, applied: (event: RecordedEvent) => this.views.invalidate((event.data as { serverId: string }).serverId) }];
  }

  protected handlers(): Handlers {
    return {
      [SUBJECTS.servers.start]: (r: StartServerRequest) => this.start(r),
      [SUBJECTS.servers.get]: (r: GetServerRequest) => this.get(r),
      [SUBJECTS.servers.list]: (r: ListServersRequest) => this.list(r),
      [SUBJECTS.servers.stop]: (r: StopServerRequest) => this.stop(r),
      [SUBJECTS.servers.usesBuild]: (r: UsesBuildRequest) => this.usesBuild(r),
    };
  }

  protected override async starting(): Promise<void> {
    this.unwatch = this.runtime.watch((e) => void this.onMachineEvent(e));
    await this.reconcile();
  }

  protected override async stopping(): Promise<void> {
    this.unwatch?.();
    await this.runtime.close();
    await this.logs.flush();
  }

  async start(req: StartServerRequest): Promise<ServerView> {
    const body = req.body;
    const project = await this.bus.request<ProjectView>(SUBJECTS.projects.get, { projectId: req.projectId });
    const computeSize = body.compute_size ?? 'small';
    const limits = PLAN_LIMITS[project.plan];
    const activeServers = limits.maxActiveServers === null ? 0 : await this.db.server.count({ where: { projectId: req.projectId, status: { in: ['launching', 'running'] } } });
    const ttl = applyPlan({ plan: project.plan, computeSize, ttl: body.ttl ?? null, activeServers });
    const versionTag = body.version_tag ?? 'default';
    const build = await this.bus.request<ResolvedBuild>(SUBJECTS.builds.resolve, { projectId: req.projectId, name: versionTag, version: body.version ?? null });
    if (build.kind === 'image' && this.runtime.kind === 'process') {
      throw invalid('this deployment runs game servers as local processes and cannot start container image builds', [
        { loc: ['body', 'version_tag'], msg: 'build is a container image; the process runtime runs ZIP builds only', type: 'value_error' },
      ]);
    }

    const serverId = randomUUID();
    const portSpecs = (body.port_configs ?? project.settings.port_configs).map((p) => ({
      name: p.name, internalPort: p.internal_port, protocol: p.protocol, tlsEnabled: p.tls_enabled ?? false,
    }));
    const allocated = await this.runtime.allocatePorts(serverId, portSpecs);
    const networkPorts: NetworkPort[] = allocated.map((p) => ({
      name: p.name, internal_port: p.internalPort, external_port: p.externalPort, protocol: p.protocol, host: p.host, tls_enabled: p.tlsEnabled,
    }));
    const launch: ServerLaunch = {
      serverId, projectId: req.projectId, name: body.name, region: body.region, computeSize, versionTag, version: build.version,
      buildId: build.buildId, networkPorts, startupArgs: body.startup_args ?? null, serviceType: body.service_type ?? 'match_based',
      autoRestart: body.auto_restart ?? false, customData: body.custom_data ?? null, ttl, matchId: body.match_id ?? randomUUID(),
      environmentVariables: body.environment_variables ?? {}, isPoolServer: false,
    };
    const stream = serverStream(serverId);
    let position: bigint | null;
    try {
      // Not this.command(): the game is spawned before the reply waits for the read model.
      ({ position } = await execute(this.store, serverDecider, stream, { type: 'StartServer', now: this.now(), ...launch }, { projectId: req.projectId }));
    } catch (err) {
      await this.runtime.releasePorts(serverId);
      throw err;
    }
    this.owners.set(serverId, req.projectId);
    try {
      await this.runtime.start({
        serverId, projectId: req.projectId, buildDir: build.dir ?? undefined, executablePath: build.executablePath ?? undefined, image: build.image ?? undefined,
        args: splitArgs(launch.startupArgs), computeSize, region: body.region, ports: allocated,
        env: buildGameEnv({
          instanceId: serverId, matchId: launch.matchId, region: launch.region, computeSize, versionTag, version: build.version,
          customData: launch.customData, ports: allocated, projectEnv: project.settings.environment_variables, requestEnv: launch.environmentVariables,
        }),
      });
    } catch (err) {
      await this.recordExit(serverId, 'START_FAILED', null);
      throw new DomainError('conflict', `the game server could not be started: ${(err as Error).message}`);
    }
    await this.projections.waitFor(position, stream);
    return this.get({ projectId: req.projectId, serverId });
  }

  async get(req: GetServerRequest): Promise<ServerView> {
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
    const limit = req.limit ?? 50;
    const cursor = req.next_token ? decodeCursor(req.next_token) : null;
    if (req.next_token && !cursor) throw invalid('invalid next_token', [{ loc: ['query', 'next_token'], msg: 'invalid pagination token', type: 'value_error' }]);
    const rows = await this.db.server.findMany({
      where: {
        projectId: req.projectId,
        ...(req.status ? { status: req.status } : {}),
        ...(req.region ? { region: req.region } : {}),
        ...(req.version_tag ? { versionTag: req.version_tag } : {}),
        ...(req.match_id ? { matchId: req.match_id } : {}),
        ...(cursor ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { servers: page.map(toServerView), next_token: rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null };
  }

  async stop(req: StopServerRequest): Promise<ServerView> {
    await this.get(req); // 404 for another project's server
    const reason = (req.reason ?? 'SHUTDOWN_SIGNAL') as StopReason;
    if (!STOP_REASONS.includes(reason)) throw invalid('invalid shutdown_reason');
    await this.command(serverDecider, serverStream(req.serverId), { type: 'StopServer', reason, now: this.now() }, { projectId: req.projectId });
    // The machine is torn down after the reply; its ports are released only once it is gone.
    void this.runtime.stop(req.serverId).then(() => this.runtime.releasePorts(req.serverId)).catch((err) => console.error('stop failed', err));
    return this.get(req);
  }

  async usesBuild(req: UsesBuildRequest): Promise<{ inUse: boolean }> {
    const n = await this.db.server.count({ where: { projectId: req.projectId, buildId: req.buildId, status: { in: ['launching', 'running'] } } });
    return { inUse: n > 0 };
  }

  private async onMachineEvent(event: MachineEvent): Promise<void> {
    try {
      if (event.type === 'log') {
        const projectId = this.owners.get(event.entry.serverId);
        if (projectId) this.logs.add(projectId, event.entry);
      } else if (event.type === 'ports_bound') {
        await execute(this.store, serverDecider, serverStream(event.serverId), { type: 'MarkRunning', now: event.at.toISOString() });
      } else if (event.type === 'exited') {
        await this.recordExit(event.serverId, event.reason === 'SHUTDOWN_SIGNAL' ? 'PROCESS_EXITED' : event.reason, event.exitCode, event.at);
        await this.runtime.releasePorts(event.serverId);
        this.owners.delete(event.serverId);
      }
    } catch (err) {
      console.error(`servers: handling ${event.type} failed`, err);
    }
  }

  private async recordExit(serverId: string, reason: StopReason, exitCode: number | null, at = this.clock()): Promise<void> {
    await execute(this.store, serverDecider, serverStream(serverId), { type: 'RecordExit', reason, exitCode, now: at.toISOString() });
  }

  /** After a restart of this service, servers whose machine is gone must not stay active. */
  private async reconcile(): Promise<void> {
    const live = new Set(this.runtime.running());
    const active = await this.db.server.findMany({ where: { status: { in: ['launching', 'running'] } }, select: { id: true } });
    for (const { id } of active) {
      if (live.has(id)) continue;
      const { state } = await load(this.store, serverDecider, serverStream(id));
      if (state.status === 'launching' || state.status === 'running') await this.recordExit(id, 'PROCESS_EXITED', null);
    }
  }
}
