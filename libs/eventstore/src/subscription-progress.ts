// How far a subscription has delivered, and the caughtUp() calls waiting for it to get somewhere.
// Shared by the adapters so "caught up" means the same thing on both.

interface Waiter {
  target: bigint;
  resolve(): void;
  reject(err: unknown): void;
}

export class SubscriptionProgress {
  private waiters: Waiter[] = [];
  private stoppedBy?: { reason: unknown };

  constructor(private delivered: bigint) {}

  /** Position of the last event handled (or the start position). */
  get position(): bigint {
    return this.delivered;
  }

  advance(position: bigint): void {
    this.delivered = position;
    const ready = this.waiters.filter((w) => w.target <= position);
    this.waiters = this.waiters.filter((w) => w.target > position);
    for (const w of ready) w.resolve();
  }

  /** Resolves once `target` has been delivered; rejects if the subscription stops first. */
  waitFor(target: bigint): Promise<void> {
    if (this.stoppedBy) return Promise.reject(this.stoppedBy.reason);
    if (target <= this.delivered) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ target, resolve, reject }));
  }

  /** No more events will be delivered: pending and future waits fail with `reason`. */
  stop(reason: unknown): void {
    if (this.stoppedBy) return;
    this.stoppedBy = { reason };
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w.reject(reason);
  }
}
