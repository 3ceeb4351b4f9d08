// The servers service's dispatcher of the server-lifecycle workflow's intents (ADR-0010): a stop (TTL,
// startup timeout) runs on the server with the intent's key as its command id; a crash restart starts the
// machine spec again in the server's lane; a refill wakes the pool manager, whose plan decides whether
// anything starts. The runner sends at least once: a stop already applied under its key, a restart of a
// crash that was already restarted (or that something else moved on from), and a refill that finds the
// pool full all do nothing. A refusal is final and resolves the intent; a lost race or an infrastructure
// failure throws, so the runner retries it.
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, RestartCrashedServer, ServerCommand, ServerLaunch, ServerState } from '@spawnpoint/domain';
import { IntentDispatcher, routeIntents, unlessRefused } from '@spawnpoint/platform';
import { newServerToken } from '@spawnpoint/proto';
import { GameRuntime } from '@spawnpoint/runtime';
import { Machines, networkPorts, portSpecs } from './machines';
import { ServerPools } from './pools/server-pools';
import { RUNTIME } from './runtime';
import { ServerStates } from './server-states';
import { Upstream } from './upstream';

@Injectable()
export class ServerIntents {
  constructor(
    @Inject(RUNTIME) private readonly runtime: GameRuntime,
    private readonly states: ServerStates,
    private readonly machines: Machines,
    private readonly pools: ServerPools,
    private readonly upstream: Upstream,
  ) {}

  readonly dispatch: IntentDispatcher = routeIntents('servers', {
    aggregates: { server: (serverId, command, intent) => this.onServer(serverId, command, intent.key) },
    requests: {
      RestartCrashedServer: (command, intent) => this.restart(command, intent.key),
      RefillPool: async (command) => this.pools.manager.refill(command.projectId),
    },
  });

  /** Once per key; a refusal (already stopped, moved on) is the outcome. */
  private async onServer(serverId: string, command: ServerCommand, key: string): Promise<void> {
    await unlessRefused(this.states.handle(serverId, command, { key }));
  }

  /** The crash the intent reacts to, started again on the same spec, unless the server has moved on since. */
  private async restart(c: RestartCrashedServer, key: string): Promise<void> {
    const { serverId } = c;
    await this.states.lane.run(serverId, async () => {
      const { state } = await this.states.load(serverId);
      // Another crash since (its own intent follows), a stop, a manual restart, or this restart already running.
      if (state.status !== 'launching' || state.restarts !== c.attempt || this.runtime.running().includes(serverId)) return;
      const spec = await this.machines.ownSpec(serverId);
      if (spec) return void (await this.runtime.start(spec).catch(() => this.states.recordExit(serverId, 'START_FAILED', null)));
      // The crashed machine ran on another replica (or this one forgot its spec): a new machine here, from the
      // launch the store keeps, with new ports and a new token (ADR-0021); the crash-loop count goes on.
      await this.restartHere(state, c, key);
    });
  }

  /**
   * A server of this instance still `launching` whose machine never came (this process died between storing
   * its start and spawning its game, and a retried start was answered with it): a new machine from the launch
   * the store keeps, as a crash restart on another replica does (new ports and token, the crash-loop count
   * unchanged). False when it cannot (moved on, its build gone): the caller records it lost.
   */
  async relaunch(serverId: string, now: string): Promise<boolean> {
    return this.states.lane.run(serverId, async () => {
      const { state } = await this.states.load(serverId);
      if (state.status !== 'launching' || this.runtime.running().includes(serverId)) return false;
      await this.restartHere(state, { type: 'RestartCrashedServer', projectId: state.projectId, serverId, attempt: state.restarts, now }, `relaunch:${serverId}:${state.updatedAt}`);
      const { state: after } = await this.states.load(serverId);
      return after.status !== 'stopped' && this.runtime.running().includes(serverId);
    });
  }

  private async restartHere(state: Extract<ServerState, { status: 'launching' }>, c: RestartCrashedServer, key: string): Promise<void> {
    const { serverId } = c;
    const project = await this.upstream.project(state.projectId);
    const build = await this.upstream.resolveBuild(state.projectId, state.versionTag, state.version).catch((err) => {
      if (err instanceof DomainError) return null; // its build is gone: stopped below, never stuck launching
      throw err;
    });
    if (!build) return this.onServer(serverId, { type: 'StopServer', reason: 'PROCESS_EXITED', now: c.now }, key);
    const allocated = await this.runtime.allocatePorts(serverId, portSpecs(state.networkPorts), state.region);
    const token = newServerToken(serverId);
    let next: ServerState;
    try {
      ({ state: next } = await this.states.handle(serverId, {
        type: 'RestartServer', overrides: {}, networkPorts: networkPorts(allocated), buildId: build.buildId, version: build.version, tokenHash: token.hash,
        now: c.now, crashAttempt: c.attempt,
      }));
    } catch (err) {
      await this.runtime.releasePorts(serverId);
      // Moved on since the crash (a refusal): nothing to restart.
      if ((err as { code?: string }).code === 'conflict') return;
      throw err;
    }
    await this.machines.launch(next as ServerLaunch, build, allocated, project, token.token);
  }
}
