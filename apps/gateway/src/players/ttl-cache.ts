// A bounded in-memory map whose entries expire. Oldest entries go first when full (insertion order;
// a re-set entry counts as new). Concurrent loads of one missing key share one load.
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(capacity >= 1)) throw new Error('TtlCache capacity must be at least 1');
  }

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /** Keep `value` for `ttlMs` (nothing is kept when ttlMs <= 0). */
  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    if (!(ttlMs > 0)) return;
    this.entries.set(key, { value, until: this.now() + ttlMs });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  /**
   * The cached value, or the result of `load` (shared by concurrent callers), kept for the ttl it returns.
   * A failed load caches nothing.
   */
  async getOrLoad(key: string, load: () => Promise<{ value: V; ttlMs: number }>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = load().then(({ value, ttlMs }) => {
        if (this.loading.get(key) === pending) this.set(key, value, ttlMs);
        return value;
      }).finally(() => {
        if (this.loading.get(key) === pending) this.loading.delete(key);
      });
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** Forget one key; a load in flight for it will not be kept. */
  delete(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
