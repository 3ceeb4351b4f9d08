// One timer per server for its TTL; rebuilt from state whenever a server event could move the deadline,
// and at start-up, so a restart of this service loses no TTL.
export class TtlTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** `now`: the injected clock (ms). */
  constructor(private readonly expire: (serverId: string) => void, private readonly now: () => number) {}

  set(serverId: string, deadline: Date | null): void {
    this.clear(serverId);
    if (!deadline) return;
    // setTimeout holds at most ~24.8 days; TTLs are at most 1 day.
    const delay = Math.min(Math.max(0, deadline.getTime() - this.now()), 2 ** 31 - 1);
    this.timers.set(serverId, setTimeout(() => {
      this.timers.delete(serverId);
      this.expire(serverId);
    }, delay));
  }

  clear(serverId: string): void {
    const t = this.timers.get(serverId);
    if (t) clearTimeout(t);
    this.timers.delete(serverId);
  }

  clearAll(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  get size(): number {
    return this.timers.size;
  }
}
