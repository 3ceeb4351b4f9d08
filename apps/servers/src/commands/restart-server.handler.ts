import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { applyPlan, conflict, notFound, ServerLaunch, ServerState } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { newServerToken, ProjectView, RestartServerRequest, ServerView } from '@spawnpoint/proto';
import type { GameRuntime } from '@spawnpoint/runtime';
import { ColdStarts } from '../cold-starts';
import { Machines, networkPorts, portSpecs } from '../machines';
import { RUNTIME } from '../runtime';
import { ServerStates } from '../server-states';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';
import { Upstream } from '../upstream';

export class RestartServer extends BusCommand<RestartServerRequest, ServerView> {}

/**
 * Same instance id, a new machine with new ports; overrides apply, the rest stays. The whole restart
 * (old machine down, ports, the event, the new machine) is one step of the server's lane, decided on
 * the state read inside it: overlapping restarts run one after the other, each on the machine the
 * previous one left, so exactly one machine runs at the end.
 */
@Injectable()
@CommandHandler(RestartServer)
export class RestartServerHandler implements ICommandHandler<RestartServer> {
  constructor(
    private readonly readModel: ServersReadModel,
    private readonly states: ServerStates,
    private readonly views: ServerViews,
    private readonly machines: Machines,
    private readonly upstream: Upstream,
    @Inject(RUNTIME) private readonly runtime: GameRuntime,
    private readonly coldStarts: ColdStarts,
  ) {}

  async execute({ request: req }: RestartServer): Promise<ServerView> {
    await this.views.get(req); // 404 for another project's server
    const project = await this.upstream.project(req.projectId);
    await this.states.lane.run(req.serverId, () => this.inLane(req, project));
    return this.views.get(req);
  }

  private async inLane(req: RestartServerRequest, project: ProjectView): Promise<void> {
    const { state } = await this.states.load(req.serverId);
    if (state.status === 'none') throw notFound('server');
    if (state.isPoolServer) throw conflict('pool servers cannot be restarted; stop it and start a new one');
    const o = req.body;
    const ttl = applyPlan({
      plan: project.plan, computeSize: state.computeSize, ttl: o.ttl !== undefined ? o.ttl : state.ttl,
      activeServers: state.status === 'stopped' ? await this.views.activeCount(project) : 0,
    });
    const versionTag = o.version_tag ?? state.versionTag;
    // Without a new tag or version the server keeps its build version; a new tag alone means its latest.
    const version = o.version !== undefined ? o.version : o.version_tag !== undefined ? null : state.version;
    const build = await this.upstream.resolveBuild(req.projectId, versionTag, version);
    const ports = o.port_configs ?? state.networkPorts.map((p) => ({ name: p.name, internal_port: p.internal_port, protocol: p.protocol, tls_enabled: p.tls_enabled }));
    await this.machines.teardown(req.serverId);
    this.coldStarts.begin(req.serverId, state.region);
    const allocated = await this.runtime.allocatePorts(req.serverId, portSpecs(ports), state.region);
    // A new machine gets a new token: the old machine's stops working (ADR-0016).
    const token = newServerToken(req.serverId);
    let next: ServerState;
    try {
      ({ state: next } = await this.states.handle(req.serverId, {
        type: 'RestartServer', networkPorts: networkPorts(allocated), buildId: build.buildId, version: build.version, tokenHash: token.hash, now: this.readModel.now(),
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
      }, { projectId: req.projectId, await: 'readModel' }));
    } catch (err) {
      await this.runtime.releasePorts(req.serverId);
      throw err;
    }
    await this.machines.launch(next as ServerLaunch, build, allocated, project, token.token);
  }
}
