// The servers read model as the providers see it: wait until it shows a write (read-your-writes), and
// hear each server event once it is applied. The host owns the projection runner and hands it over
// here when it starts, so no provider needs the host (which needs them for its lifecycle).
import { Injectable } from '@nestjs/common';
import { ServerEvent } from '@spawnpoint/domain';
import type { ProjectionRunner } from '@spawnpoint/platform';

/** A server event after the read model applied it; `revision`: the event's in its stream. */
export interface AppliedServerEvent { event: ServerEvent; revision: number }

@Injectable()
export class ServersReadModel {
  private runner: ProjectionRunner | null = null;
  private readonly listeners: ((applied: AppliedServerEvent) => void)[] = [];

  attach(runner: ProjectionRunner): void {
    this.runner = runner;
  }

  waitFor(position: bigint | null, streamId: string): Promise<void> {
    return this.started().waitFor(position, streamId);
  }

  waitForHead(streamId: string): Promise<void> {
    return this.started().waitForHead(streamId);
  }

  /** Listeners run in the order they subscribed, synchronously: each starts its own async work. */
  onApplied(listener: (applied: AppliedServerEvent) => void): void {
    this.listeners.push(listener);
  }

  applied(applied: AppliedServerEvent): void {
    for (const listener of this.listeners) listener(applied);
  }

  private started(): ProjectionRunner {
    if (!this.runner) throw new Error('servers read model not started');
    return this.runner;
  }
}
