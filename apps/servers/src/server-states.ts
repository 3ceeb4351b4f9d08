// The server aggregate's one write path (Aggregate.handle: its state cache, lane and read-your-writes),
// and the lane each server's machine work runs in. Commands decide on the cached state (a stale one fails
// on its revision and is read again); loads read only the stream's tail.
import { Inject, Injectable } from '@nestjs/common';
import { serverDecider, ServerCommand, ServerEvent, ServerState, serverStream, StopReason } from '@spawnpoint/domain';
import { Aggregate, KeyedLane, Platform, PLATFORM } from '@spawnpoint/platform';
import { ServersReadModel } from './servers-read-model';

@Injectable()
export class ServerStates extends Aggregate<ServerCommand, ServerEvent, ServerState> {
  /** A server's machine operations (start, stop, restart, teardown) one at a time. */
  readonly lane = new KeyedLane();

  constructor(@Inject(PLATFORM) private readonly platform: Platform, readModel: ServersReadModel) {
    super(platform.store, serverDecider, serverStream, readModel);
  }

  recordExit(serverId: string, reason: StopReason, exitCode: number | null, at: Date = this.platform.clock()) {
    return this.handle(serverId, { type: 'RecordExit', reason, exitCode, now: at.toISOString() });
  }

  now(): string {
    return this.platform.clock().toISOString();
  }
}
