// Spreads the periodic per-stream work (presence reports, `ping`, `queue_stats`) evenly over time.
// Writing a ping to 10,000 sockets in one timer callback held the event loop for ~250 ms, and so did
// reporting 10,000 streams' presence in one message: every lobby update in that window waited.
// Here every stream sits in one of `slots` slots (placed round-robin, so streams opened together are
// spread too); each tick visits one slot, so a stream is visited once per `slots` ticks, and a job of
// period k visits runs on every k-th visit of that stream.
export interface WheelJobs {
  /** Visits between runs of each job (≥ 1). */
  readonly [job: string]: number;
}

interface Entry {
  slot: number;
  visits: number;
}

export class StreamWheel<T extends object> {
  private readonly slots: Set<T>[];
  private readonly entries = new Map<T, Entry>();
  private cursor = 0;
  private placed = 0;

  constructor(slotCount: number) {
    if (!Number.isInteger(slotCount) || slotCount < 1) throw new Error(`slot count must be a positive integer, got ${slotCount}`);
    this.slots = Array.from({ length: slotCount }, () => new Set<T>());
  }

  get size(): number {
    return this.entries.size;
  }

  add(item: T): void {
    if (this.entries.has(item)) return;
    const slot = this.placed++ % this.slots.length;
    this.slots[slot].add(item);
    this.entries.set(item, { slot, visits: 0 });
  }

  delete(item: T): void {
    const e = this.entries.get(item);
    if (!e) return;
    this.slots[e.slot].delete(item);
    this.entries.delete(item);
  }

  /** Visits the next slot: for each job, the items of that slot whose turn it is. */
  tick<J extends WheelJobs>(jobs: J): { [K in keyof J]: T[] } {
    const names = Object.keys(jobs) as (keyof J)[];
    const due = Object.fromEntries(names.map((k) => [k, [] as T[]])) as { [K in keyof J]: T[] };
    const slot = this.slots[this.cursor];
    this.cursor = (this.cursor + 1) % this.slots.length;
    for (const item of slot) {
      const e = this.entries.get(item)!;
      e.visits++;
      for (const k of names) if (e.visits % jobs[k] === 0) due[k].push(item);
    }
    return due;
  }
}

/**
 * The wheel's shape for jobs with these periods (ms): one turn takes the shortest period, in ticks of at
 * most `maxTickMs`; each job runs every round(period / turn) turns.
 */
export function wheelPlan<J extends Record<string, number>>(periodsMs: J, maxTickMs = 100): { tickMs: number; slots: number; every: { [K in keyof J]: number } } {
  const values = Object.values(periodsMs);
  if (!values.length || values.some((v) => !(v > 0))) throw new Error('every period must be > 0 ms');
  const turn = Math.min(...values);
  const slots = Math.max(1, Math.ceil(turn / maxTickMs));
  const every = Object.fromEntries(Object.entries(periodsMs).map(([k, v]) => [k, Math.max(1, Math.round(v / turn))])) as { [K in keyof J]: number };
  return { tickMs: turn / slots, slots, every };
}
