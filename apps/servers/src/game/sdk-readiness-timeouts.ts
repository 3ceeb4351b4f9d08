// The startup timeout for `readiness: sdk` servers (ADR-0016). The runtimes time out a start only until
// its ports are bound; an SDK-ready server stays launching after that until its game reports ready, so
// this arms the rest of SPAWNPOINT_STARTUP_TIMEOUT_MS from the ports-bound report. In memory on purpose:
// after a crash of this service the server-lifecycle workflow's durable startup timer still stops it.
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ActiveServerState } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { logger } from '@spawnpoint/logging';
import { ServerStates } from '../server-states';

const log = logger('servers');

@Injectable()
export class SdkReadinessTimeouts implements OnModuleDestroy {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly states: ServerStates) {}

  /**
   * Its ports are bound and it waits for its game: stop it if this same launch (a restart renews the token
   * hash, a crash restart counts up) is still launching when the launch's timeout ends. The launch began at
   * the state's updatedAt (its start, restart or crash; nothing else moves a launching server but the game's
   * own reports, which only make the deadline later).
   */
  arm(serverId: string, state: ActiveServerState): void {
    clearTimeout(this.timers.get(serverId));
    const launch = `${state.tokenHash}:${state.restarts}`;
    const due = Date.parse(state.updatedAt) + this.platform.config.startupTimeoutMs - this.platform.clock().getTime();
    this.timers.set(serverId, setTimeout(() => void this.expire(serverId, launch), Math.max(0, due)).unref());
  }

  private async expire(serverId: string, launch: string): Promise<void> {
    this.timers.delete(serverId);
    try {
      const { state } = await this.states.load(serverId);
      // Only the same launch, still waiting for its game: a ready report, stop or restart since then wins.
      if (state.status !== 'launching' || `${state.tokenHash}:${state.restarts}` !== launch) return;
      await this.states.handle(serverId, { type: 'StopServer', reason: 'STARTUP_FAILURE_TIMEOUT', now: this.states.now() }, { projectId: state.projectId });
    } catch (err) {
      log.error({ err }, `servers: startup timeout of ${serverId} failed`);
    }
  }

  onModuleDestroy(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
