// The servers service: the Server aggregate, the game runtime (processes or pods) and its reports turned
// into commands, and pools. This class runs the servers read model, relay and the server-lifecycle
// workflow (TTL, startup timeout, crash restart, pool refill; its intents go to server-intents.ts), and
// the service's lifecycle; each use case is a handler in commands/ or queries/ (routes.ts), the shared
// state is providers (server-states, machines, machine-events, pools, admission).
import { Inject, Injectable } from '@nestjs/common';
import { serverLifecycleWorkflow } from '@spawnpoint/domain';
import { logger } from '@spawnpoint/logging';
import { IntentDispatcher, Platform, PLATFORM, ServiceHost } from '@spawnpoint/platform';
import { machineGauges, poolTargetGauges, serverGauges } from './server-gauges';
import type { GameRuntime } from '@spawnpoint/runtime';
import { LogWriter } from './log-writer';
import { MachineEvents } from './machine-events';
import { Machines } from './machines';
import { PlanAdmission } from './plan-admission';
import { StartKeys } from './pools/start-keys';
import { ServerPools } from './pools/server-pools';
import { HostPortReservations } from './host-port-reservations';
import { MachineOwners } from './machine-owners';
import { ReconcileHost, reconcileMachines, recordShutdown, takeOverExpired } from './reconcile-machines';
import { RUNTIME } from './runtime';
import { ServerStates } from './server-states';
import { ServerIntents } from './server-intents';
import { ServersReadModel } from './servers-read-model';
import { serversProjection } from './servers.projection';

const log = logger('servers');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Injectable()
export class ServersHost extends ServiceHost {
  constructor(
    @Inject(PLATFORM) platform: Platform,
    @Inject(RUNTIME) private readonly runtime: GameRuntime,
    readModel: ServersReadModel,
    private readonly states: ServerStates,
    private readonly machines: Machines,
    private readonly machineEvents: MachineEvents,
    private readonly intents: ServerIntents,
    private readonly pools: ServerPools,
    private readonly logs: LogWriter,
    private readonly admission: PlanAdmission,
    private readonly startKeys: StartKeys,
    private readonly owners: MachineOwners,
    private readonly hostPorts: HostPortReservations,
  ) {
    super(platform, readModel, 'servers', ['server']);
  }

  protected readModels() {
    return [serversProjection];
  }

  protected override gauges() {
    return [...serverGauges(this.db), ...machineGauges(this.runtime), ...poolTargetGauges(() => this.pools.manager.minReadyByRegion())];
  }

  protected override workflows() {
    return [serverLifecycleWorkflow];
  }

  protected override dispatcher(): IntentDispatcher {
    return this.intents.dispatch;
  }

  protected override async starting(): Promise<void> {
    this.machineEvents.watch();
    // The lease first: this instance's servers are not taken over while it reconciles (ADR-0021).
    await this.owners.renew();
    await this.reconcile();
    // Each heartbeat also takes over the live servers of owners whose lease expired, (kubernetes) sweeps
    // the host port reservations of servers no longer live that no teardown released, and removes the
    // start keys older than any retry of their start.
    await this.owners.start(async () => {
      await takeOverExpired(this.reconcileHost(), () => this.owners.expiredServers());
      if (this.runtime.kind === 'kubernetes') await this.hostPorts.sweep();
      await this.startKeys.sweep();
    });
    await this.pools.manager.start();
  }

  protected override async stopping(): Promise<void> {
    this.pools.manager.stop();
    this.owners.stop();
    this.machineEvents.unwatchRuntime();
    // Local games end with this process (pods outlive it and are adopted): recorded stopped, not left running.
    if (this.runtime.kind === 'process') {
      await recordShutdown(this.runtime.running(), (id) => this.states.handle(id, { type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: this.now() }));
    }
    await this.runtime.close();
    // Pods run on: the lease ends now, so another replica adopts them on its next beat, not after the lease.
    if (this.runtime.kind === 'kubernetes') {
      await this.owners.resign().catch((err) => log.warn({ err }, 'servers: ending the machine owner lease failed; other replicas adopt its pods once it expires'));
    }
    await this.logs.drain();
    await this.admission.close();
  }

  /** After a restart of this service: machines adopted or torn down, lost servers stopped (reconcile-machines.ts); TTL timers are the workflow's, kept in the database. */
  private async reconcile(): Promise<void> {
    await reconcileMachines(this.reconcileHost());
  }

  private reconcileHost(): ReconcileHost {
    return {
      runtime: this.runtime,
      activeServerIds: async () => (await this.db.server.findMany({ where: { status: { in: ['launching', 'running'] } }, select: { id: true } })).map((s) => s.id),
      ownership: (ids) => this.owners.classify(ids.filter((id) => UUID.test(id))),
      takeOver: (id, from) => this.owners.takeOver(id, from),
      load: async (id) => (await this.states.load(id)).state,
      relaunch: (id) => this.intents.relaunch(id, this.now()),
      recordLost: async (id) => void (await this.states.recordExit(id, 'MACHINE_LOST', null)),
      adopted: (id, spec) => this.machines.adopt(id, spec),
      log: (projectId, entry) => this.logs.add(projectId, entry),
      now: () => this.clock(),
    };
  }
}
