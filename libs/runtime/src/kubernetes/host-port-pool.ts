// Host ports of one region. A port is free when no server reserved it here and no live pod in the
// region holds it (pods started by another replica, or before this process restarted: the watch knows them).
// With a HostPortLedger (several servers replicas) the reservations are the ledger's: this pool only
// picks the candidates.

export class HostPortPool {
  private readonly ownerOf = new Map<number, string>();
  // Next-fit: a just-released port is handed out last, so stray packets for an old match rarely reach a new one.
  private cursor: number;

  /** `start`: where next-fit begins (replicas sharing a ledger start apart, so they rarely race for one port). */
  constructor(readonly range: [number, number], start?: number) {
    const [low, high] = range;
    if (!Number.isInteger(low) || !Number.isInteger(high) || low < 1 || high > 65535 || low > high) {
      throw new Error(`invalid port range ${low}-${high}`);
    }
    this.cursor = start !== undefined && start >= low && start <= high ? start : low;
  }

  /** `count` ports for `serverId`, none reserved or in `busy`; all or none. Synchronous, so two calls never pick one port. */
  allocate(serverId: string, count: number, busy: ReadonlySet<number>): number[] {
    const picked = this.pick(count, busy);
    for (const port of picked) this.ownerOf.set(port, serverId);
    return picked;
  }

  /** The next `count` ports (next-fit) neither reserved here nor in `busy`, without reserving them; throws when the range has fewer. */
  pick(count: number, busy: ReadonlySet<number>): number[] {
    const [low, high] = this.range;
    const size = high - low + 1;
    const picked: number[] = [];
    for (let i = 0; i < size && picked.length < count; i++) {
      const port = low + ((this.cursor - low + i) % size);
      if (this.ownerOf.has(port) || busy.has(port)) continue;
      picked.push(port);
    }
    if (picked.length < count) throw new Error(`no free host port in range ${low}-${high} (${count} needed)`);
    const last = picked[picked.length - 1];
    if (last !== undefined) this.cursor = last === high ? low : last + 1;
    return picked;
  }

  /** Reserve ports allocated before (e.g. by a previous process) for `serverId`; refuses ports another server holds. */
  claim(serverId: string, ports: number[]): void {
    const [low, high] = this.range;
    for (const port of ports) {
      const owner = this.ownerOf.get(port);
      if (owner !== undefined && owner !== serverId) throw new Error(`host port ${port} is reserved for server ${owner}`);
      if (port < low || port > high) throw new Error(`host port ${port} is outside the region's range ${low}-${high}`);
    }
    for (const port of ports) this.ownerOf.set(port, serverId);
  }

  release(serverId: string): void {
    for (const [port, owner] of this.ownerOf) if (owner === serverId) this.ownerOf.delete(port);
  }

  reservedBy(serverId: string): number[] {
    return [...this.ownerOf].filter(([, owner]) => owner === serverId).map(([port]) => port);
  }
}
