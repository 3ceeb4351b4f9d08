// The pool refill process as a provider: the PoolManager fed by applied server events, starting and
// stopping pool servers through the launcher, claiming on the server's stream.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DomainError, serverStream } from '@spawnpoint/domain';
import { logger } from '@spawnpoint/logging';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ServerLauncher } from '../server-launcher';
import { ServerStates } from '../server-states';
import { ServersReadModel } from '../servers-read-model';
import { Upstream } from '../upstream';
import { PoolHost, PoolManager } from './pool-manager';

const log = logger('pools');

@Injectable()
export class ServerPools {
  readonly manager: PoolManager;

  constructor(
    @Inject(PLATFORM) platform: Platform,
    private readonly states: ServerStates,
    private readonly launcher: ServerLauncher,
    private readonly upstream: Upstream,
    private readonly readModel: ServersReadModel,
  ) {
    this.manager = new PoolManager(this.host(), platform.db, platform.bus, () => platform.clock().getTime());
    readModel.onApplied(({ event }) => this.manager.onEvent(event));
  }

  private host(): PoolHost {
    return {
      project: (projectId) => this.upstream.project(projectId),
      resolveBuild: (projectId, name, version) => this.upstream.resolveBuild(projectId, name, version),
      startPoolServer: async (project, region, computeSize, build) => {
        try {
          const { serverId, position } = await this.launcher.create(project, build, project.settings.port_configs, {
            name: `pool-${region}`, region, computeSize, versionTag: build.name, startupArgs: null, serviceType: 'match_based', autoRestart: false,
            customData: null, ttl: null, matchId: randomUUID(), environmentVariables: {}, isPoolServer: true,
          });
          // The next reconcile counts pool servers from the read model: this one must be in it.
          await this.readModel.waitFor(position, serverStream(serverId));
        } catch (err) {
          log.error({ err, project_id: project.projectId, region }, 'pools: starting a pool server failed');
        }
      },
      stopPoolServer: async (serverId) => {
        try {
          // The next reconcile counts pool servers from the read model: the stop must be in it.
          await this.states.handle(serverId, { type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: this.readModel.now() }, { await: 'readModel' });
        } catch {
          // already stopped, or gone: the next reconcile plans again
        }
      },
      claim: async (projectId, serverId, claim) => {
        // Not read-your-writes here: the claim is answered at once from its state, and reads of the server
        // wait for it instead (ClaimVisibility), so a claim never waits behind the refill's projection work.
        try {
          const { position, state } = await this.states.handle(serverId, { type: 'ClaimPoolServer', ...claim, now: this.states.now() }, { projectId });
          return { position, state };
        } catch (err) {
          if (err instanceof DomainError && err.code === 'conflict') return null;
          throw err;
        }
      },
    };
  }
}
