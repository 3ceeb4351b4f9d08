// The TTL process: a timer per server, rebuilt after every event that can move its deadline (and for
// adopted machines at start-up), that stops the server when its time is up.
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ServerEvent, ServerState, ttlDeadline } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ServerStates } from './server-states';
import { ServersReadModel } from './servers-read-model';
import { TtlTimers } from './ttl-timers';

/** Events after which a server's TTL deadline may have moved. */
const TTL_EVENTS = new Set<ServerEvent['type']>(['ServerRunning', 'ServerPoolClaimed', 'ServerRestarted']);

@Injectable()
export class ServerTtl {
  private readonly timers: TtlTimers;

  constructor(@Inject(PLATFORM) platform: Platform, private readonly states: ServerStates, readModel: ServersReadModel) {
    this.timers = new TtlTimers((id) => void this.expire(id), () => platform.clock().getTime());
    readModel.onApplied(({ event, revision }) => {
      if (event.type === 'ServerStopped') this.timers.clear(event.data.serverId);
      else if (TTL_EVENTS.has(event.type)) void this.refresh(event.data.serverId, revision);
    });
  }

  /** An adopted server (crash reconcile): its timer from its state. */
  adopted(serverId: string, state: ServerState): void {
    this.timers.set(serverId, ttlDeadline(state));
  }

  clearAll(): void {
    this.timers.clearAll();
  }

  /** `revision`: the applied event's (a cached state that has it needs no read). */
  private async refresh(serverId: string, revision: number): Promise<void> {
    try {
      const { state } = await this.states.load(serverId, revision);
      this.timers.set(serverId, ttlDeadline(state));
    } catch (err) {
      console.error(`servers: ttl of ${serverId}`, err);
    }
  }

  private async expire(serverId: string): Promise<void> {
    try {
      await this.states.execute(serverId, { type: 'StopServer', reason: 'TTL_EXPIRED', now: this.states.now() });
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'conflict')) console.error(`servers: ttl stop of ${serverId} failed`, err);
    }
  }
}
