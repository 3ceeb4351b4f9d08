// The shell every service shares: its projections, its outbox relay, its own start (`starting`), its
// workflows and its bus routes, started in that order (a handler never answers from read models that have
// not caught up; a workflow's dispatch writes through them and acts on a world the service has reconciled
// with, e.g. the servers' adopted machines). Workflows (ADR-0010) run in one WorkflowRunner on the
// service's store, read-model database and clock, and stop first, before the service's own stop. Its projection runner is
// attached to the service's ServiceReadModel, the injectable its handlers and providers write and wait
// through (read-your-writes), so none of them needs the host.
import { OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { EventStore, RecordedEvent } from '@spawnpoint/eventstore';
import { Bus, EventRelay } from '@spawnpoint/messaging';
import type { ReadModels } from '@spawnpoint/read-models';
import { Projection, ProjectionRunner } from '../projections/projection-runner';
import { replayHandlers } from '../projections/replay-handlers';
import { serviceReportHandlers } from '../projections/service-reports';
import { startRelay } from '../projections/relay-host';
import { serve } from '../commands/serve';
import { ServiceReadModel } from './service-read-model';
import { BusRoute } from '../commands/cqrs/bus-message';
import { routeHandlers } from '../commands/cqrs/bus-dispatch';
import type { PlatformConfig } from './config';
import type { Platform } from './platform';
import type { Clock } from './tokens';
import { AnyWorkflow, IntentDispatcher, WorkflowRunner } from '../workflow-runner/workflow-runner';
import { consumerGauges, GaugeDefinition, projectionGauges, registerGauges, relayGauges } from '../metrics/service-metrics';
import { metricsEnabled } from '../metrics/registry';

export type { Platform };

/** The CQRS buses a service's routes dispatch to. */
export interface Dispatch { commands: CommandBus; queries: QueryBus }

export abstract class ServiceHost implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly store: EventStore;
  protected readonly bus: Bus;
  protected readonly db: ReadModels;
  protected readonly clock: Clock;
  protected readonly config: PlatformConfig;
  projections!: ProjectionRunner;
  /** Null when the service runs no workflows. */
  workflowRunner: WorkflowRunner | null = null;
  private relay: EventRelay | null = null;
  private served: (() => Promise<void>)[] = [];
  private unregisterGauges: (() => void) | null = null;

  protected constructor(
    private readonly platform: Platform,
    private readonly readModel: ServiceReadModel,
    private readonly serviceName: string,
    private readonly categories: string[],
  ) {
    ({ store: this.store, bus: this.bus, db: this.db, clock: this.clock, config: this.config } = platform);
  }

  /** This service's read models. */
  protected abstract readModels(): Projection[];
  /** This service's workflows (ADR-0010), run by one durable runner; none by default. */
  protected workflows(): AnyWorkflow[] {
    return [];
  }

  /** Sends the workflows' command intents; a service with workflows provides it. */
  protected dispatcher(): IntentDispatcher {
    return async (intent) => {
      throw new Error(`${this.serviceName}: no dispatcher for the intent ${intent.key}`);
    };
  }

  /** This service's bus subjects and the command or query each becomes: given by its module (servesRoutes). */
  private routed: { routes: BusRoute[]; dispatch: Dispatch } | null = null;

  /** Serve these routes once the service has started (see servesRoutes, the module's provider that calls it). */
  serveRoutes(routes: BusRoute[], dispatch: Dispatch): void {
    this.routed = { routes, dispatch };
  }

  /** Scrape-time gauges from the read models this service owns (each app's own `*-gauges.ts`); none by default. */
  protected gauges(): GaugeDefinition[] {
    return [];
  }

  /** After read models and relay run, before requests are served (e.g. reconcile with the world). */
  protected async starting(): Promise<void> {}
  protected async stopping(): Promise<void> {}

  async onModuleInit(): Promise<void> {
    // Each applied event is heard through the service's read model (its listeners: caches, timers, pools).
    const projections = this.readModels().map((p): Projection => ({
      ...p,
      applied: (event: RecordedEvent) => {
        p.applied?.(event);
        this.readModel.applied(event);
      },
    }));
    this.projections = new ProjectionRunner(this.store, this.db, projections);
    await this.projections.start();
    this.readModel.attach(this.projections);
    this.relay = await startRelay(this.store, this.bus, this.platform.checkpoints, this.serviceName, this.categories);
  }

  /** After every module's init: the CQRS handlers are registered (CqrsModule bootstraps first, being deeper). */
  async onApplicationBootstrap(): Promise<void> {
    await this.starting();
    const workflows = this.workflows();
    if (workflows.length > 0) {
      this.workflowRunner = new WorkflowRunner(this.store, this.db, workflows, this.dispatcher(), { now: this.clock, dispatchConcurrency: this.config.workflowDispatchConcurrency });
      await this.workflowRunner.start();
    }
    const routed = this.routed ? routeHandlers(this.routed.routes, this.routed.dispatch.commands, this.routed.dispatch.queries) : {};
    const reports = serviceReportHandlers({ service: this.serviceName, runner: this.projections, store: this.store, db: this.db });
    this.served = await serve(this.bus, { ...routed, ...replayHandlers(this.projections), ...reports });
    if (metricsEnabled()) {
      this.unregisterGauges = registerGauges([
        ...projectionGauges(this.db, this.store, () => this.projections.names), ...relayGauges(this.serviceName, () => this.relay),
        ...consumerGauges(this.bus), ...this.gauges(),
      ]);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // No new requests (another replica takes them); its workflows (an intent in flight is sent again by the
    // next leader); the service's own work (timers, sweeps, consumers, games), whose last events the relay
    // still publishes; the relay and its checkpoint; the read models. The database closes after all of them
    // (PlatformModule, then standalone's PostgreSQL).
    this.unregisterGauges?.();
    for (const unsubscribe of this.served.splice(0)) await unsubscribe().catch(() => undefined);
    await this.workflowRunner?.stop();
    await this.stopping();
    await this.relay?.stop();
    await this.projections?.stop();
  }

  now(): string {
    return this.clock().toISOString();
  }
}
