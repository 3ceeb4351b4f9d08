// The timers of one game machine (kill grace, startup and pending timeouts, port polls): all cleared
// together when the machine is gone, so none fires for a machine that no longer exists.
export class MachineTimers {
  private readonly timers = new Set<NodeJS.Timeout>();

  later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
