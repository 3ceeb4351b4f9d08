// An in-memory copy of read-model rows for hot queries, kept exact by the projection: after each
// applied event the projection invalidates the row's key. Loads are single-flight, and a load that
// an invalidation overtook never lands in the cache (it may hold the row as it was before the event).
interface InFlight<V> { promise: Promise<V | null>; stale: boolean }

export class ViewCache<V> {
  private readonly entries = new Map<string, V>();
  private readonly loading = new Map<string, InFlight<V>>();

  constructor(private readonly capacity = 50_000) {}

  /** The cached value, if any, without loading (a hit without a promise: the hottest reads take it first). */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Keep recently read keys: Map order is insertion order, so re-insert on hit.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
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
    // Cached values are handed to many callers at once: nobody may change them.
    this.entries.set(key, deepFreeze(value));
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
