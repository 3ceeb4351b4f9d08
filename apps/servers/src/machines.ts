// The game machines this process runs: each one's spec (what a crash restart starts again), launched
// and torn down in the server's lane, and torn down once a stop is in the read model.
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ServerLaunch, NetworkPort } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ProjectView, ResolvedBuild, signArtifactUrl } from '@spawnpoint/proto';
import { AllocatedPort, buildGameEnv, GameRuntime, MachineSpec, PortSpec, splitArgs } from '@spawnpoint/runtime';
import { logger } from '@spawnpoint/logging';
import { BuildDirs } from './build-dirs';
import { LogAttribution } from './log-attribution';
import { MachineOwners } from './machine-owners';
import { RUNTIME } from './runtime';
import { ServerStates } from './server-states';
import { ServersReadModel } from './servers-read-model';
import { throughOutages } from './through-outages';

const log = logger('servers');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Injectable()
export class Machines {
  private readonly specs = new Map<string, MachineSpec>();
  /** Which project a game's log line belongs to (also for adopted machines whose spec is unknown). */
  readonly logOwners: LogAttribution;

  constructor(
    @Inject(PLATFORM) private readonly platform: Platform,
    @Inject(RUNTIME) private readonly runtime: GameRuntime,
    private readonly states: ServerStates,
    readModel: ServersReadModel,
    private readonly buildDirs: BuildDirs,
    private readonly owners: MachineOwners,
  ) {
    this.logOwners = new LogAttribution(
      (id) => this.specs.get(id)?.projectId,
      async (id) => (UUID.test(id) ? ((await platform.db.server.findUnique({ where: { id }, select: { projectId: true } }))?.projectId ?? null) : null),
    );
    readModel.onApplied(({ event, revision }) => {
      if (event.type !== 'ServerStopped') return;
      const serverId = event.data.serverId;
      // Only if still stopped when its turn comes: a restart queued before it may have started a new machine.
      // Through an outage: a stopped server's game left running would be an orphan.
      void states.lane.run(serverId, () => throughOutages(`tearing down ${serverId}`, async () => {
        if ((await states.load(serverId, revision)).state.status === 'stopped') await this.teardown(serverId);
      })).catch((err) => log.error({ err, project_id: this.specs.get(serverId)?.projectId }, `servers: teardown of ${serverId} failed`));
    });
  }

  /**
   * The spec to start again after a crash, while this instance still owns the server: a launch on another
   * replica since (a crash restart there) moved the server, with a new token, and this spec is stale.
   */
  async ownSpec(serverId: string): Promise<MachineSpec | undefined> {
    const spec = this.specs.get(serverId);
    if (!spec || (await this.owners.owns(serverId))) return spec;
    this.specs.delete(serverId);
    return undefined;
  }

  /** A machine adopted after a restart of this service: its spec, when the runtime kept it. */
  adopt(serverId: string, spec: MachineSpec | null): void {
    if (spec) this.specs.set(serverId, spec);
  }

  /**
   * Start the server's game (call in its lane); a failure records START_FAILED and answers 409. `owned`: this
   * instance already recorded itself as the server's owner (a cold start does before its ServerStarted).
   */
  async launch(launch: ServerLaunch, build: ResolvedBuild, allocated: AllocatedPort[], project: ProjectView, serverToken: string, options: { owned?: boolean } = {}): Promise<void> {
    const spec: MachineSpec = {
      serverId: launch.serverId, projectId: launch.projectId, executablePath: build.executablePath ?? undefined,
      image: build.image ?? undefined, args: splitArgs(launch.startupArgs), computeSize: launch.computeSize, region: launch.region, ports: allocated,
      ...(launch.isPoolServer ? { pool: true } : {}),
      env: buildGameEnv({
        instanceId: launch.serverId, matchId: launch.matchId, region: launch.region, computeSize: launch.computeSize, versionTag: launch.versionTag,
        version: launch.version, customData: launch.customData, ports: allocated, projectEnv: project.settings.environment_variables,
        requestEnv: launch.environmentVariables, serverToken, apiUrl: `${this.platform.config.artifactBaseUrl}/api`,
      }),
    };
    if (this.runtime.kind === 'kubernetes' && build.kind === 'zip') {
      // Pods cannot read the build directory: they download it from the gateway's signed artifact URL.
      // A crash restart starts this same spec again, possibly after an hour: every read signs afresh.
      const { artifactBaseUrl: baseUrl, artifactSecret: secret } = this.platform.config;
      Object.defineProperty(spec, 'artifactUrl', {
        enumerable: true, configurable: true,
        get: () => signArtifactUrl({ baseUrl, secret, buildId: build.buildId, now: this.platform.clock() }).url,
      });
    }
    this.specs.set(launch.serverId, spec);
    // Its ServerStarted is in the store: a database outage now must not leave it launching without a machine.
    const id = launch.serverId;
    try {
      // This instance runs the machine: it owns it (a manual restart may move a server to this replica; ADR-0021).
      if (!options.owned) await throughOutages(`recording the owner of ${id}`, () => this.owners.claim(id));
      // A local game runs from this machine's copy of the build (extracted from its blob when missing).
      if (this.runtime.kind === 'process' && build.kind === 'zip') {
        spec.buildDir = await throughOutages(`preparing the build of ${id}`, () => this.buildDirs.ensure(launch.projectId, build.buildId));
      }
      await this.runtime.start(spec);
    } catch (err) {
      await throughOutages(`recording the failed start of ${id}`, () => this.states.recordExit(id, 'START_FAILED', null), { retryIf: (e) => !(e instanceof DomainError) });
      throw new DomainError('conflict', `the game server could not be started: ${(err as Error).message}`);
    }
  }

  /** Stop the machine (if this process runs it) and give its ports back. Idempotent. */
  async teardown(serverId: string): Promise<void> {
    await this.runtime.stop(serverId);
    await this.runtime.releasePorts(serverId);
    this.specs.delete(serverId);
    this.logOwners.forget(serverId);
  }
}

export function portSpecs(ports: { name: string; internal_port: number; protocol: 'udp' | 'tcp'; tls_enabled?: boolean }[]): PortSpec[] {
  return ports.map((p) => ({ name: p.name, internalPort: p.internal_port, protocol: p.protocol, tlsEnabled: p.tls_enabled ?? false }));
}

export function networkPorts(allocated: AllocatedPort[]): NetworkPort[] {
  return allocated.map((p) => ({
    name: p.name, internal_port: p.internalPort, external_port: p.externalPort, protocol: p.protocol, host: p.host, tls_enabled: p.tlsEnabled,
  }));
}
