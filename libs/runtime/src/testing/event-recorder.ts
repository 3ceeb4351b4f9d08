import type { GameRuntime, LogEntry, MachineEvent } from '../runtime';

type Exited = Extract<MachineEvent, { type: 'exited' }>;

/** Records every event of a runtime from creation on, so a test can wait for one that may already have happened. */
export class EventRecorder {
  readonly events: MachineEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(runtime: GameRuntime) {
    this.unsubscribe = runtime.watch((event) => {
      this.events.push(event);
      for (const wake of this.waiters) wake();
    });
  }

  /** The first event so far or to come that matches, or a rejection naming `what` after timeoutMs. */
  next(what: string, matches: (event: MachineEvent) => boolean, timeoutMs = 15_000): Promise<MachineEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.find(matches);
        if (!found) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  portsBound(serverId: string, timeoutMs?: number): Promise<MachineEvent> {
    return this.next(`ports_bound of ${serverId}`, (e) => e.type === 'ports_bound' && e.serverId === serverId, timeoutMs);
  }

  async exited(serverId: string, timeoutMs?: number): Promise<Exited> {
    return (await this.next(`exited of ${serverId}`, (e) => e.type === 'exited' && e.serverId === serverId, timeoutMs)) as Exited;
  }

  async log(serverId: string, pattern: RegExp, timeoutMs?: number): Promise<LogEntry> {
    const event = await this.next(
      `a log line of ${serverId} matching ${pattern}`,
      (e) => e.type === 'log' && e.entry.serverId === serverId && pattern.test(e.entry.message),
      timeoutMs,
    );
    return (event as Extract<MachineEvent, { type: 'log' }>).entry;
  }

  count(serverId: string, type: MachineEvent['type']): number {
    return this.events.filter((e) => e.type === type && (e.type === 'log' ? e.entry.serverId : e.serverId) === serverId).length;
  }

  stop(): void {
    this.unsubscribe();
  }
}
