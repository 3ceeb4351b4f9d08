// A service's read side (what Aggregate.handle's `await: 'readModel'` waits on), as an injectable that depends on nothing of
// the service: its providers and handlers inject it, while the host (which depends on those providers for
// its lifecycle) attaches its projection runner to it when it starts. Each service declares its own
// subclass (`class ServersReadModel extends ServiceReadModel<ServerEvent> {}`), so that in standalone,
// where every service shares one Nest app, each has its own instance.
import { Inject, Injectable } from '@nestjs/common';
import { DomainEvent } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import type { ProjectionRunner } from '../projections/projection-runner';
import type { Platform } from './platform';
import { PLATFORM } from './tokens';

/** An event after the service's read model applied it (committed); `revision`: the event's in its stream. */
export interface AppliedEvent<E extends DomainEvent = DomainEvent> { event: E; revision: number; streamId: string; position: bigint }

@Injectable()
export abstract class ServiceReadModel<E extends DomainEvent = DomainEvent> {
  private runner: ProjectionRunner | null = null;
  private readonly listeners: ((applied: AppliedEvent<E>) => void)[] = [];

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  /** Called by ServiceHost once its projections have caught up. */
  attach(runner: ProjectionRunner): void {
    this.runner = runner;
  }

  /** The injected clock, as commands carry it. */
  now(): string {
    return this.platform.clock().toISOString();
  }

  /** Resolves once every projection over `streamId`'s category has applied `position`. */
  waitFor(position: bigint | null, streamId: string): Promise<void> {
    return this.running().waitFor(position, streamId);
  }

  /** Resolves once the read models show every event of `streamId`'s category committed before the call. */
  waitForHead(streamId: string): Promise<void> {
    return this.running().waitForHead(streamId);
  }

  /** Applies what is held back under load (of `streamId`'s category), so a read shows what this process has seen. */
  settle(streamId: string): Promise<void> {
    return this.running().settle(streamId);
  }

  /** Listeners run in the order they subscribed, synchronously: each starts its own async work. */
  onApplied(listener: (applied: AppliedEvent<E>) => void): void {
    this.listeners.push(listener);
  }

  /** Fed by the host's projections (their `applied` hook). */
  applied(event: RecordedEvent): void {
    if (this.listeners.length === 0) return;
    const applied = { event: { type: event.type, data: event.data } as E, revision: event.revision, streamId: event.streamId, position: event.position };
    for (const listener of this.listeners) listener(applied);
  }

  private running(): ProjectionRunner {
    if (!this.runner) throw new Error(`${this.constructor.name} is not running yet (its service host has not started)`);
    return this.runner;
  }
}
