import path from 'node:path';
import { Module } from '@nestjs/common';
import { CONFIG, Platform, PLATFORM, PlatformConfig, servesRoutes } from '@spawnpoint/platform';
import { GameRuntime, KubernetesRuntime, ProcessRuntime } from '@spawnpoint/runtime';
import { BuildDirs } from './build-dirs';
import { ClaimVisibility } from './claim-visibility';
import { ColdStarts } from './cold-starts';
import { LogWriter } from './log-writer';
import { LogReads } from './logs/log-read-deps';
import { MachineEvents } from './machine-events';
import { Machines } from './machines';
import { PlanAdmission } from './plan-admission';
import { StartKeys } from './pools/start-keys';
import { ServerPools } from './pools/server-pools';
import { SERVERS_HANDLERS, serversRoutes } from './routes';
import { RUNTIME } from './runtime';
import { ServerLauncher } from './server-launcher';
import { ServerStates } from './server-states';
import { ServerIntents } from './server-intents';
import { ServerViews } from './server-views';
import { GameTokens } from './game/game-tokens';
import { SdkReadinessTimeouts } from './game/sdk-readiness-timeouts';
import { ServersReadModel } from './servers-read-model';
import { ServersHost } from './servers.host';
import { Upstream } from './upstream';
import { HostPortReservations } from './host-port-reservations';
import { kubernetesOwnerId, MachineOwners, ownerLeaseOptions, processOwnerId } from './machine-owners';

@Module({
  providers: [
    { provide: HostPortReservations, inject: [PLATFORM], useFactory: (p: Platform) => new HostPortReservations(p.db) },
    { provide: StartKeys, inject: [PLATFORM], useFactory: (p: Platform) => new StartKeys(p.db, { durable: Boolean(p.config.eventStoreUrl) }) },
    {
      provide: RUNTIME,
      inject: [CONFIG, HostPortReservations],
      // RUNTIME=kubernetes: one Pod per server, configured by the file at SPAWNPOINT_K8S_CONFIG (docs/kubernetes.md).
      // Servers replicas share its host ports through PostgreSQL, and each watches the pods it owns (ADR-0021).
      useFactory: async (config: PlatformConfig, hostPorts: HostPortReservations): Promise<GameRuntime> =>
        config.runtime === 'kubernetes'
          ? KubernetesRuntime.fromEnvironment(process.env, { ledger: hostPorts, adoptOnSight: false })
          : new ProcessRuntime({
            portRange: config.portRange, tcpHost: config.tcpHost, udpHost: config.udpHost, startupTimeoutMs: config.startupTimeoutMs,
            // Each game's pid, start time and spec: a restart after a crash adopts them (docs/adr/0006-crash-recovery.md).
            stateDir: path.join(config.dataDir, 'machines'),
            ...(config.portLockDir ? { portLockDir: config.portLockDir } : {}),
          }),
    },
    {
      // This instance's owner id (ADR-0021): the process runtime's is kept in its data dir; with Kubernetes it is
      // the servers pod, and a take-over adopts the pods of an owner whose lease expired (a rolling upgrade
      // renames every replica), so pods run on.
      provide: MachineOwners, inject: [PLATFORM],
      useFactory: (p: Platform) => new MachineOwners(p.db, ownerLeaseOptions(
        p.config.runtime === 'kubernetes' ? kubernetesOwnerId() : processOwnerId(path.join(p.config.dataDir, 'machines')),
      )),
    },
    { provide: LogWriter, inject: [PLATFORM], useFactory: (p: Platform) => new LogWriter(p.db) },
    { provide: PlanAdmission, inject: [PLATFORM], useFactory: (p: Platform) => new PlanAdmission(p.config.databaseUrl) },
    ServersReadModel, ServerStates, Upstream, ServerViews, GameTokens, SdkReadinessTimeouts, ClaimVisibility, ColdStarts, BuildDirs, Machines, MachineEvents, ServerLauncher, ServerIntents, ServerPools, LogReads,
    ServersHost,
    ...SERVERS_HANDLERS,
    servesRoutes(ServersHost, serversRoutes),
  ],
  exports: [ServersHost],
})
export class ServersModule {}
