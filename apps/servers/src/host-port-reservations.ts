// The kubernetes runtime's host ports, reserved in PostgreSQL so that every servers replica sees them
// (ADR-0003, ADR-0021): one row per (region, port), whose primary key decides which replica gets a port both
// picked. The runtime picks candidates and keeps those it won (KubernetesRuntime.allocatePorts); the stop
// teardown releases a server's rows, and the sweep removes those of servers no longer live that a teardown
// missed (a replica that died, the database down at that moment).
import type { ReadModels } from '@spawnpoint/read-models';
import type { HostPortLedger } from '@spawnpoint/runtime';

/** How long a row may exist without its server being live in the read model (it is written before ServerStarted is appended, and the read model lags). */
export const RESERVATION_SWEEP_GRACE_MS = 5 * 60_000;

export class HostPortReservations implements HostPortLedger {
  constructor(private readonly db: ReadModels) {}

  async held(region: string): Promise<Map<number, string>> {
    const rows = await this.db.$queryRaw<{ port: number; server_id: string }[]>`
      SELECT port, server_id::text AS server_id FROM host_port_reservations WHERE region = ${region}`;
    return new Map(rows.map((r) => [r.port, r.server_id]));
  }

  async reserve(region: string, serverId: string, ports: number[]): Promise<number[]> {
    const wanted = [...new Set(ports)];
    if (wanted.length === 0) return [];
    // A port the server holds already comes back too (the no-op update); another server's does not.
    const rows = await this.db.$queryRaw<{ port: number }[]>`
      INSERT INTO host_port_reservations (region, port, server_id)
      SELECT ${region}, p, ${serverId}::uuid FROM unnest(${wanted}::int[]) AS p
      ON CONFLICT (region, port) DO UPDATE SET server_id = EXCLUDED.server_id
        WHERE host_port_reservations.server_id = EXCLUDED.server_id
      RETURNING port`;
    return rows.map((r) => r.port);
  }

  async release(serverId: string): Promise<void> {
    await this.db.$executeRaw`DELETE FROM host_port_reservations WHERE server_id = ${serverId}::uuid`;
  }

  /** Remove the reservations of servers that are stopped or unknown in the read model, older than `graceMs`; how many. */
  async sweep(graceMs = RESERVATION_SWEEP_GRACE_MS): Promise<number> {
    return this.db.$executeRaw`
      DELETE FROM host_port_reservations r
      WHERE r.created_at < now() - make_interval(secs => ${graceMs / 1000}::float8)
        AND NOT EXISTS (SELECT 1 FROM servers s WHERE s.id = r.server_id AND s.status IN ('launching', 'running'))`;
  }
}
