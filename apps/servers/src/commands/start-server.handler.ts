import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { Admission, PLAN_LIMITS, serverStream } from '@spawnpoint/domain';
import { BusCommand, idFromCommand, observePoolClaim } from '@spawnpoint/platform';
import { ProjectView, ServerView, StartServerRequest } from '@spawnpoint/proto';
import { ClaimVisibility } from '../claim-visibility';
import { PlanAdmission } from '../plan-admission';
import { ServerPools } from '../pools/server-pools';
import { StartKeys } from '../pools/start-keys';
import { ServerLauncher } from '../server-launcher';
import { ServerStates } from '../server-states';
import { serverView, stateShape } from '../server-view';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';
import { Upstream } from '../upstream';

export class StartServer extends BusCommand<StartServerRequest, ServerView> {}

/**
 * A new game server: a ready pool server claimed, or a new one started cold. The command id (a gateway
 * write's, a workflow intent's key) is taken in the store first (StartKeys), gives a cold server its id,
 * and a claim records it, so a start sent again after its answer was lost answers the server it started or
 * claimed, not a second one, whichever replica it reaches and whether or not the first one still lives.
 */
@Injectable()
@CommandHandler(StartServer)
export class StartServerHandler implements ICommandHandler<StartServer> {
  constructor(
    private readonly states: ServerStates,
    private readonly views: ServerViews,
    private readonly upstream: Upstream,
    private readonly admission: PlanAdmission,
    private readonly pools: ServerPools,
    private readonly claims: ClaimVisibility,
    private readonly launcher: ServerLauncher,
    private readonly readModel: ServersReadModel,
    private readonly startKeys: StartKeys,
  ) {}

  async execute({ request: req, context }: StartServer): Promise<ServerView> {
    const received = performance.now();
    const startKey = context.commandId ?? undefined;
    if (!startKey) return this.start(req, randomUUID(), received);
    const serverId = idFromCommand('server', req.projectId, startKey);
    const earlier = await this.startKeys.begin(req.projectId, startKey, () => this.startedBy(req.projectId, serverId, startKey));
    if (earlier) return this.views.get({ projectId: req.projectId, serverId: earlier, fresh: true });
    try {
      return await this.start(req, serverId, received, startKey);
    } catch (err) {
      await this.startKeys.failed(req.projectId, startKey);
      throw err;
    }
  }

  /** What an earlier arrival of this start did before it lost its key: started cold under the command's id, or claimed a pool server. */
  private async startedBy(projectId: string, serverId: string, startKey: string): Promise<string | null> {
    if ((await this.states.load(serverId)).state.status !== 'none') return serverId;
    return this.startKeys.claimedBy(projectId, startKey);
  }

  private async start(req: StartServerRequest, serverId: string, received: number, startKey?: string): Promise<ServerView> {
    const project = await this.upstream.project(req.projectId);
    // A capped plan counts active servers: its starts run one at a time (PlanAdmission).
    if (PLAN_LIMITS[project.plan].maxActiveServers === null) return this.admitted(req, project, serverId, received, startKey);
    return this.admission.run(project.projectId, () => this.admitted(req, project, serverId, received, startKey));
  }

  /**
   * The inputs first (the plan and its active servers; then, for a cold start, the build and the ports),
   * each decision the Server decider's: a ready pool server's claim, else a cold start, each admitted by
   * the plan there (compute size, active servers, the ttl the plan gives).
   */
  private async admitted(req: StartServerRequest, project: ProjectView, serverId: string, received: number, startKey?: string): Promise<ServerView> {
    const body = req.body;
    const computeSize = body.compute_size ?? 'small';
    const ttl = body.ttl ?? null;
    const admission: Admission = { plan: project.plan, activeServers: await this.views.activeCount(project) };
    const matchId = body.match_id ?? randomUUID();
    const leaseSeconds = project.settings.pool_config?.claim_lease_seconds ?? undefined;
    const claimed = await this.pools.manager.claim(project, body, {
      name: body.name, customData: body.custom_data ?? null, ttl, matchId, admission, ...(startKey ? { startKey } : {}), ...(leaseSeconds ? { leaseSeconds } : {}),
    });
    if (claimed) {
      // Answered from the claimed state at once; reads of this server wait until the read model shows it.
      this.claims.claimed(claimed.serverId, claimed.position);
      observePoolClaim(body.region, (performance.now() - received) / 1000);
      return serverView(stateShape(claimed.state));
    }
    const versionTag = body.version_tag ?? 'default';
    const build = await this.upstream.resolveBuild(req.projectId, versionTag, body.version ?? null);
    const { position } = await this.launcher.create(project, build, body.port_configs ?? project.settings.port_configs, {
      name: body.name, region: body.region, computeSize, versionTag, startupArgs: body.startup_args ?? null, serviceType: body.service_type ?? 'match_based',
      autoRestart: body.auto_restart ?? false, customData: body.custom_data ?? null, ttl, matchId, environmentVariables: body.environment_variables ?? {},
      isPoolServer: false, ...(body.readiness === 'sdk' ? { readiness: 'sdk' as const } : {}),
    }, serverId, admission);
    await this.readModel.waitFor(position, serverStream(serverId));
    return this.views.get({ projectId: req.projectId, serverId });
  }
}
