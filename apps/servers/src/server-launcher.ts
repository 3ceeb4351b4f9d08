// A new server, for a start request or a pool refill: ports reserved, ServerStarted appended, the game
// spawned in the server's lane. Whoever answers waits for the read model itself.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Admission, ServerLaunch } from '@spawnpoint/domain';
import { newServerToken, ProjectView, ResolvedBuild } from '@spawnpoint/proto';
import { isInfrastructureError } from '@spawnpoint/messaging';
import type { GameRuntime } from '@spawnpoint/runtime';
import { logger } from '@spawnpoint/logging';
import { ColdStarts } from './cold-starts';
import { MachineOwners } from './machine-owners';
import { Machines, networkPorts, portSpecs } from './machines';
import { RUNTIME } from './runtime';
import { ServerStates } from './server-states';
import { throughOutages } from './through-outages';

const log = logger('servers');

export type PortConfig = { name: string; internal_port: number; protocol: 'udp' | 'tcp'; tls_enabled?: boolean };
export type LaunchFields = Omit<ServerLaunch, 'serverId' | 'projectId' | 'networkPorts' | 'buildId' | 'version' | 'tokenHash'>;

@Injectable()
export class ServerLauncher {
  constructor(
    @Inject(RUNTIME) private readonly runtime: GameRuntime, private readonly states: ServerStates, private readonly machines: Machines, private readonly coldStarts: ColdStarts,
    private readonly owners: MachineOwners,
  ) {}

  /**
   * `admission`: a caller's start, admitted by the plan in the Server decider (refused: nothing but the
   * ports, given back, was done); a pool refill has none. The ports are allocated as data before the
   * decision, bound by the machine after it.
   */
  async create(
    project: ProjectView, build: ResolvedBuild, ports: PortConfig[], fields: LaunchFields, serverId: string = randomUUID(), admission?: Admission,
  ): Promise<{ serverId: string; position: bigint | null }> {
    this.coldStarts.begin(serverId, fields.region);
    const allocated = await this.runtime.allocatePorts(serverId, portSpecs(ports), fields.region);
    // The machine's token: the game gets it in its environment, the stream only its hash (ADR-0016).
    const token = newServerToken(serverId);
    const launch: ServerLaunch = {
      ...fields, serverId, projectId: project.projectId, networkPorts: networkPorts(allocated), buildId: build.buildId, version: build.version, tokenHash: token.hash,
    };
    const launchMachine = () => this.states.lane.run(serverId, () => this.machines.launch(launch, build, allocated, project, token.token, { owned: true }));
    let position: bigint | null;
    try {
      // The owner before the append (ADR-0021): a live server never lacks one, so no other replica's reconcile takes it for its own.
      ({ position } = await this.states.handle(serverId, { type: 'StartServer', now: this.states.now(), ...launch, ...(admission ? { admission } : {}) }, {
        projectId: project.projectId, beforeAppend: () => this.owners.claim(serverId),
      }));
    } catch (err) {
      // The store may have taken the append before the connection broke: then a machine is owed.
      if (isInfrastructureError(err)) void this.resolveUnanswered(launch, launchMachine);
      else {
        this.coldStarts.forget(serverId);
        await this.runtime.releasePorts(serverId);
      }
      throw err;
    }
    await launchMachine();
    return { serverId, position };
  }

  /**
   * A ServerStarted whose append went unanswered (a database outage): read the stream back once it answers.
   * Appended with this launch's token → the machine is launched (a retried start with the same command id
   * finds the server and answers it); not appended → the ports go back. Never a server left launching
   * without a machine, never a machine without its server.
   */
  private async resolveUnanswered(launch: ServerLaunch, launchMachine: () => Promise<void>): Promise<void> {
    const { serverId } = launch;
    try {
      const { state } = await throughOutages(`reading back the start of ${serverId}`, () => this.states.load(serverId));
      if (state.status === 'launching' && state.tokenHash === launch.tokenHash && !this.runtime.running().includes(serverId)) {
        log.warn(`servers: the start of ${serverId} was stored though its append went unanswered; launching its machine`);
        await launchMachine();
      } else if (state.status === 'none') {
        await this.runtime.releasePorts(serverId);
      }
    } catch (err) {
      log.error({ err }, `servers: resolving the unanswered start of ${serverId} failed`);
    }
  }
}
