// An in-memory copy of read-model rows for hot queries, kept exact by the projection: after each
// applied event the projection invalidates the row's key. Loads are single-flight, and a load that
// an invalidation overtook never lands in the cache (it may hold the row as it was before the event).
interface InFlight<V> { promise: Promise<V | null>; stale: boolean }

export class ViewCache<V> {
  private readonly entries = new Map<string, { value: V; read: boolean }>();
  private readonly loading = new Map<string, InFlight<V>>();

  constructor(private readonly capacity = 50_000) {}

  /**
   * The cached value, if any, without loading (a hit without a promise: the hottest reads take it first).
   * A hit only marks the entry read (second-chance eviction): re-inserting it into the Map on every hit
   * was a visible share of a cached GET.
   */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    hit.read = true;
    return hit.value;
  }

  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const pending = this.loading.get(key);
    if (pending && !pending.stale) return pending.promise;
    const flight: InFlight<V> = { promise: load(), stale: false };
    this.loading.set(key, flight);
    try {
      const value = await flight.promise;
      if (!flight.stale && value !== null) this.set(key, value);
      return value;
    } finally {
      if (this.loading.get(key) === flight) this.loading.delete(key);
    }
  }

  invalidate(key: string): void {
    this.entries.delete(key);
    const pending = this.loading.get(key);
    if (pending) pending.stale = true;
  }

  get size(): number {
    return this.entries.size;
  }

  private set(key: string, value: V): void {
    this.entries.delete(key);
    // Room first: the oldest entry goes, unless it was read since it was (re)queued: then it gets a second
    // chance at the back, unmarked (each entry at most once a round, so this ends). The new entry is not
    // a candidate: it was just asked for.
    while (this.entries.size >= this.capacity) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      if (!entry.read) break;
      entry.read = false;
      this.entries.set(oldest, entry);
    }
    // Cached values are handed to many callers at once: nobody may change them.
    this.entries.set(key, { value: deepFreeze(value), read: false });
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
