// The servers service's dispatcher of the server-lifecycle workflow's intents (ADR-0010): a stop (TTL,
// startup timeout) runs on the server with the intent's key as its command id; a crash restart starts the
// machine spec again in the server's lane; a refill wakes the pool manager, whose plan decides whether
// anything starts. The runner sends at least once: a stop already applied under its key, a restart of a
// crash that was already restarted (or that something else moved on from), and a refill that finds the
// pool full all do nothing. A refusal is final and resolves the intent; a lost race or an infrastructure
// failure throws, so the runner retries it.
import { Inject, Injectable } from '@nestjs/common';
import { RefillPool, RestartCrashedServer, ServerCommand, serverStream } from '@spawnpoint/domain';
import { executeIntentOnce, IntentDispatcher } from '@spawnpoint/platform';
import { GameRuntime } from '@spawnpoint/runtime';
import { Machines } from './machines';
import { ServerPools } from './pools/server-pools';
import { RUNTIME } from './runtime';
import { ServerStates } from './server-states';

@Injectable()
export class ServerIntents {
  constructor(
    @Inject(RUNTIME) private readonly runtime: GameRuntime,
    private readonly states: ServerStates,
    private readonly machines: Machines,
    private readonly pools: ServerPools,
  ) {}

  readonly dispatch: IntentDispatcher = async (intent) => {
    const target = intent.target;
    if ('aggregate' in target && target.aggregate === 'server') return this.onServer(target.id, intent.command as ServerCommand, intent.key);
    if ('request' in target && target.request === 'RestartCrashedServer') return this.restart(intent.command as RestartCrashedServer, intent.key);
    if ('request' in target && target.request === 'RefillPool') return this.pools.manager.refill((intent.command as RefillPool).projectId);
    throw new Error(`servers: no route for the intent ${intent.key}`);
  };

  /** Repeats and refusals (already stopped, moved on) are executeIntentOnce's. */
  private async onServer(serverId: string, command: ServerCommand, key: string): Promise<void> {
    await executeIntentOnce(this.states.cache, serverStream(serverId), key, command);
  }

  /** The crash the intent reacts to, started again on the same spec, unless the server has moved on since. */
  private async restart(c: RestartCrashedServer, key: string): Promise<void> {
    const { serverId } = c;
    await this.states.lane.run(serverId, async () => {
      const { state } = await this.states.load(serverId);
      // Another crash since (its own intent follows), a stop, a manual restart, or this restart already running.
      if (state.status !== 'launching' || state.restarts !== c.attempt || this.runtime.running().includes(serverId)) return;
      const spec = this.machines.spec(serverId);
      // An adopted machine whose spec this process never knew cannot be started again: stopped, never stuck launching.
      if (!spec) return this.onServer(serverId, { type: 'StopServer', reason: 'PROCESS_EXITED', now: c.now }, key);
      await this.runtime.start(spec).catch(() => this.states.recordExit(serverId, 'START_FAILED', null));
    });
  }
}
