// A keyed start runs once, whichever servers replica its retries reach (ADR-0007; migration 0020). The
// start takes its command id in `start_keys` before it claims or launches; a second arrival of the same
// start (another replica, or this one after a restart) finds the key taken and answers the server the
// first one got, read from the store (a cold start's stream, its id being the command's; a claim's
// `start_key` in the servers read model), instead of claiming a second pool server.
//
// One statement per keyed start, on the read models' pg pool (no Prisma on the hot path), committed without
// waiting for the WAL flush when the events are in this PostgreSQL (a synchronous commit costs a disk flush,
// ~3.5 ms here): the claim or launch that follows appends with a synchronous commit later in the same WAL,
// which flushes the key too, so a database crash loses a key only when nothing was done under it. With
// EventStoreDB (`durable`) that does not hold: the key waits for its flush.
import { logger } from '@spawnpoint/logging';
import { RemoteError } from '@spawnpoint/messaging';
import { ReadModels, readModelsPool } from '@spawnpoint/read-models';
import type { Pool } from 'pg';

const log = logger('servers');

/** A start whose replica died holds its key this long; then a retry takes it over (and first looks for what the dead one did). */
export const START_KEY_LEASE_MS = 30_000;
/** Keys older than any retry of their start are removed (the workflow runner gives up on an intent after ~3 minutes). */
export const START_KEY_KEEP_MS = 15 * 60_000;
/** How long a second arrival waits for the first one's server before it answers 503 (the client retries). */
export const START_KEY_WAIT_MS = 10_000;
const POLL_MS = 50;

const TAKE_SQL = `WITH t AS (
    INSERT INTO start_keys (project_id, key) VALUES ($1, $2)
    ON CONFLICT (project_id, key) DO UPDATE SET taken_at = now(), failed = false
      WHERE start_keys.failed OR start_keys.taken_at < now() - make_interval(secs => $3::float8)
    RETURNING (xmax = 0) AS fresh)
  SELECT fresh, set_config('synchronous_commit', $4, true) AS commit FROM t`;

/**
 * `first`: this arrival is the start. `again`: the key was held by a start that failed or whose lease ran
 * out: look for what it did, else start. `busy`: another arrival holds it now.
 */
export type StartKeyTake = 'first' | 'again' | 'busy';

export class StartKeys {
  private readonly pool: Pool;
  private readonly commit: 'on' | 'off';

  constructor(private readonly db: ReadModels, options: { durable?: boolean } = {}) {
    this.pool = readModelsPool(db);
    this.commit = options.durable ? 'on' : 'off';
  }

  /** Takes the key when it is free, failed or its lease ran out; else it is busy. */
  async take(projectId: string, key: string, leaseMs = START_KEY_LEASE_MS): Promise<StartKeyTake> {
    const { rows } = await this.pool.query<{ fresh: boolean }>({ name: 'spawnpoint_take_start_key', text: TAKE_SQL }, [projectId, key, leaseMs / 1000, this.commit]);
    if (rows.length === 0) return 'busy';
    return rows[0].fresh ? 'first' : 'again';
  }

  /**
   * The server an earlier arrival of this start got, or null when this arrival is to start it. `earlier`
   * looks in the store for what another arrival did; a busy key is looked at until `waitMs`, then 503.
   */
  async begin(projectId: string, key: string, earlier: () => Promise<string | null>, waitMs = START_KEY_WAIT_MS): Promise<string | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const took = await this.take(projectId, key);
      if (took === 'first') return null;
      const found = await earlier();
      if (found || took === 'again') return found;
      if (Date.now() >= deadline) {
        throw new RemoteError({ error: 'Service unavailable', status: 503, detail: 'a start with this command id is still running on another replica; retry' });
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** The start failed before it claimed or launched anything: the next arrival takes the key at once. */
  async failed(projectId: string, key: string): Promise<void> {
    await this.pool.query(
      `WITH t AS (UPDATE start_keys SET failed = true WHERE project_id = $1 AND key = $2 RETURNING 1)
       SELECT count(*) AS n, set_config('synchronous_commit', $3, true) AS commit FROM t`, [projectId, key, this.commit],
    ).catch((err) => log.warn({ err, project_id: projectId }, 'servers: marking a start key failed did not work; a retry takes it once its lease ends'));
  }

  /** The pool server a start with this key claimed (the claim records the key: ServerPoolClaimed.startKey). */
  async claimedBy(projectId: string, key: string): Promise<string | null> {
    const [row] = await this.db.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM servers WHERE project_id = ${projectId} AND start_key = ${key} LIMIT 1`;
    return row?.id ?? null;
  }

  /** Removes keys older than any retry of their start; how many. */
  async sweep(keepMs = START_KEY_KEEP_MS): Promise<number> {
    return this.db.$executeRaw`DELETE FROM start_keys WHERE taken_at < now() - make_interval(secs => ${keepMs / 1000}::float8)`;
  }
}
