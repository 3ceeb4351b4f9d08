// Host ports reserved where every servers replica sees them (ADR-0003, ADR-0021). The servers app keeps them
// in PostgreSQL, one row per (region, port): that unique key is what decides which replica gets a port both
// picked. Without a ledger the kubernetes runtime reserves in memory, which is right for one replica only.

export interface HostPortLedger {
  /** Every port of the region reserved now, with the server holding it. */
  held(region: string): Promise<Map<number, string>>;
  /**
   * Reserve for `serverId` those of `ports` no other server holds. Resolves with the ones it holds now (those
   * it held already included), never another server's; calling it again with the same ports changes nothing.
   */
  reserve(region: string, serverId: string, ports: number[]): Promise<number[]>;
  /** Give back every port the server holds. */
  release(serverId: string): Promise<void>;
}
