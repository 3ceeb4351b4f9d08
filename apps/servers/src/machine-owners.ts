// Ownership of game machines with several servers replicas (ADR-0021). This runtime instance has an owner
// id (process runtime: generated once into <dataDir>/machines/owner-id, so a restart on the same data dir
// is the same owner; Kubernetes: the servers pod's namespace and name) and heartbeats a lease in PostgreSQL. A server
// records the owner of its machine (server_owners) before ServerStarted is appended. Reconcile touches
// only this owner's servers and takes over those of an owner whose lease expired: a conditional UPDATE
// of the owner column, so exactly one instance wins.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import type { ServerOwnership } from '@spawnpoint/domain';
import type { ReadModels } from '@spawnpoint/read-models';
import { logger } from '@spawnpoint/logging';

const log = logger('servers');

export interface OwnerLeaseOptions {
  ownerId: string;
  /** A lease not renewed for this long is expired: its owner's servers are taken over. */
  leaseMs: number;
  /** How often the lease is renewed (a fraction of leaseMs). */
  heartbeatMs: number;
}

/** The process runtime's owner id: stable for a data dir (kept in it), with the host's name for the reader. */
export function processOwnerId(machinesDir: string): string {
  const file = path.join(machinesDir, 'owner-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (id) return id;
  } catch { /* first start on this data dir */ }
  mkdirSync(machinesDir, { recursive: true });
  const id = `${hostname()}-${randomUUID()}`;
  writeFileSync(file, `${id}\n`, { flag: 'w' });
  return id;
}

/**
 * The kubernetes runtime's owner id: the servers pod (SPAWNPOINT_POD_NAME from the downward API, else the
 * host name, which is the pod's name). A replica restarted under a new name is a new owner: it adopts the
 * old name's pods once that lease expired (or was resigned on an orderly shutdown).
 */
export function kubernetesOwnerId(env: NodeJS.ProcessEnv = process.env): string {
  return `kubernetes:${env.SPAWNPOINT_POD_NAMESPACE || 'default'}:${env.SPAWNPOINT_POD_NAME || hostname()}`;
}

/** Lease options from the environment: SPAWNPOINT_OWNER_LEASE_MS (default 30 s), heartbeat a sixth of it (at most 5 s). */
export function ownerLeaseOptions(ownerId: string, env: NodeJS.ProcessEnv = process.env): OwnerLeaseOptions {
  const leaseMs = Number(env.SPAWNPOINT_OWNER_LEASE_MS ?? 30_000);
  return { ownerId, leaseMs, heartbeatMs: Math.max(100, Math.min(5_000, Math.floor(leaseMs / 6))) };
}

export class MachineOwners {
  private timer: NodeJS.Timeout | null = null;
  private onBeat: (() => Promise<void>) | null = null;

  constructor(private readonly db: ReadModels, readonly options: OwnerLeaseOptions) {}

  get ownerId(): string {
    return this.options.ownerId;
  }

  /** Renew this owner's lease (database time: replicas' clocks may differ). */
  async renew(): Promise<void> {
    const ms = this.options.leaseMs;
    await this.db.$executeRaw`
      INSERT INTO machine_owner_leases (owner_id, expires_at, renewed_at)
      VALUES (${this.ownerId}, now() + make_interval(secs => ${ms / 1000}::float8), now())
      ON CONFLICT (owner_id) DO UPDATE SET expires_at = EXCLUDED.expires_at, renewed_at = EXCLUDED.renewed_at`;
  }

  /** Renew now, then on every heartbeat (a failed renewal is retried on the next beat); `beat` runs after each renewal. */
  async start(beat?: () => Promise<void>): Promise<void> {
    this.onBeat = beat ?? null;
    await this.renew();
    const tick = async () => {
      try {
        await this.renew();
        await this.onBeat?.();
      } catch (err) {
        log.warn({ err }, 'servers: renewing the machine owner lease (or taking over expired owners) failed; retried on the next beat');
      }
      if (this.timer) this.timer = setTimeout(() => void tick(), this.options.heartbeatMs);
    };
    this.timer = setTimeout(() => void tick(), this.options.heartbeatMs);
  }

  /** Stop heartbeating (the lease then expires on its own: a stopped replica's servers are recorded by its shutdown). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** End the lease now (an orderly shutdown whose machines run on: pods), so other replicas adopt them on their next beat. */
  async resign(): Promise<void> {
    await this.db.$executeRaw`UPDATE machine_owner_leases SET expires_at = now() WHERE owner_id = ${this.ownerId}`;
  }

  /** This instance owns the server's machine (a launch, a restart here, an adoption). */
  async claim(serverId: string): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO server_owners (server_id, owner_id) VALUES (${serverId}::uuid, ${this.ownerId})
      ON CONFLICT (server_id) DO UPDATE SET owner_id = EXCLUDED.owner_id`;
  }

  /** Whether this instance owns the server's machine (no owner recorded counts as its own, as in classify). */
  async owns(serverId: string): Promise<boolean> {
    const rows = await this.db.$queryRaw<{ owner_id: string }[]>`SELECT owner_id FROM server_owners WHERE server_id = ${serverId}::uuid`;
    return rows.length === 0 || rows[0].owner_id === this.ownerId;
  }

  /** Each server's ownership as this instance sees it: no recorded owner is taken as its own (servers from before ADR-0021). */
  async classify(serverIds: string[]): Promise<Map<string, { ownership: ServerOwnership; ownerId: string | null }>> {
    const out = new Map<string, { ownership: ServerOwnership; ownerId: string | null }>(serverIds.map((id) => [id, { ownership: 'mine', ownerId: null }]));
    if (serverIds.length === 0) return out;
    const rows = await this.db.$queryRaw<{ server_id: string; owner_id: string; live: boolean }[]>`
      SELECT o.server_id::text AS server_id, o.owner_id, coalesce(l.expires_at > now(), false) AS live
      FROM server_owners o LEFT JOIN machine_owner_leases l ON l.owner_id = o.owner_id
      WHERE o.server_id = ANY(${serverIds}::uuid[])`;
    for (const r of rows) {
      out.set(r.server_id, { ownerId: r.owner_id, ownership: r.owner_id === this.ownerId ? 'mine' : r.live ? 'live' : 'expired' });
    }
    return out;
  }

  /** Live servers (launching/running in the read model) whose owner's lease expired. */
  async expiredServers(): Promise<string[]> {
    const rows = await this.db.$queryRaw<{ server_id: string }[]>`
      SELECT o.server_id::text AS server_id
      FROM server_owners o
      JOIN servers s ON s.id = o.server_id
      LEFT JOIN machine_owner_leases l ON l.owner_id = o.owner_id
      WHERE s.status IN ('launching', 'running') AND o.owner_id <> ${this.ownerId}
        AND (l.expires_at IS NULL OR l.expires_at <= now())`;
    return rows.map((r) => r.server_id);
  }

  /** Take the server over from an owner whose lease expired: true only for the one instance whose UPDATE wins. */
  async takeOver(serverId: string, from: string): Promise<boolean> {
    const n = await this.db.$executeRaw`
      UPDATE server_owners o SET owner_id = ${this.ownerId}, taken_over_from = ${from}
      WHERE o.server_id = ${serverId}::uuid AND o.owner_id = ${from}
        AND NOT EXISTS (SELECT 1 FROM machine_owner_leases l WHERE l.owner_id = ${from} AND l.expires_at > now())`;
    return n === 1;
  }
}
