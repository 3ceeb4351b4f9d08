// Server states as this process last wrote or read them, and the lane each server's machine work runs
// in. Commands decide on the cached state (a stale one fails on its revision and is read again); loads
// read only the stream's tail.
import { Inject, Injectable } from '@nestjs/common';
import { serverDecider, ServerCommand, ServerEvent, ServerState, serverStream, StopReason } from '@spawnpoint/domain';
import { EventMetadata } from '@spawnpoint/eventstore';
import { Executed, KeyedLane, Loaded, Platform, PLATFORM, StateCache } from '@spawnpoint/platform';

@Injectable()
export class ServerStates {
  readonly cache: StateCache<ServerCommand, ServerEvent, ServerState>;
  /** A server's machine operations (start, stop, restart, teardown) one at a time. */
  readonly lane = new KeyedLane();

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    this.cache = new StateCache(platform.store, serverDecider);
  }

  load(serverId: string, seen?: number): Promise<Loaded<ServerState>> {
    return this.cache.load(serverStream(serverId), seen);
  }

  /**
   * Decide and append, without waiting for the read model. For writes nobody answers from the read model
   * (the runtime's reports, timers, shutdown) or whose caller waits itself (the launcher, a pool claim);
   * a request's write waits with ServersReadModel.command(states.cache, …).
   */
  execute(serverId: string, command: ServerCommand, metadata: EventMetadata = {}): Promise<Executed<ServerState, ServerEvent>> {
    return this.cache.execute(serverStream(serverId), command, metadata, { optimistic: true });
  }

  recordExit(serverId: string, reason: StopReason, exitCode: number | null, at: Date = this.platform.clock()) {
    return this.execute(serverId, { type: 'RecordExit', reason, exitCode, now: at.toISOString() });
  }

  now(): string {
    return this.platform.clock().toISOString();
  }
}
