// Idempotency-Key records in PostgreSQL (table idempotency_keys, read-models migration 0008), shared by
// every gateway replica. The first request of a key inserts an "in_progress" row — the primary key
// (scope, key) lets exactly one request claim it — and stores its answer when done. Scopes and keys are
// stored as hashes and answers encrypted with a key derived from the Idempotency-Key itself: an answer can carry
// secrets (a new project's API keys), and only the client that holds the key can have it replayed.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

export const KEY_TTL_HOURS = 24;
/** How long a claim holds without an answer: past it (its gateway died) a retry may take the key over. */
export const CLAIM_LEASE_MS = 3 * 60_000;

export type Claimed =
  | { kind: 'claimed' }
  | { kind: 'in_progress' }
  | { kind: 'other_request' }
  | { kind: 'done'; status: number; body: unknown };

/** One request's key: where its row is and how its answer is sealed. */
export interface KeyRef { scope: string; key: string; fingerprint: string }

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest();

export class IdempotencyStore {
  constructor(private readonly pool: Pool, private readonly leaseMs = CLAIM_LEASE_MS) {}

  /**
   * Claims the key for a request with this fingerprint. A row that expired, or an abandoned claim of the
   * same request (lease over), is taken over; otherwise the row says what happened.
   */
  async claim(ref: KeyRef): Promise<Claimed> {
    const id = rowKey(ref);
    const taken = await this.pool.query(
      `INSERT INTO idempotency_keys AS k (scope, key, fingerprint, state, locked_until, expires_at)
       VALUES ($1, $2, $3, 'in_progress', now() + $4 * interval '1 millisecond', now() + $5 * interval '1 hour')
       ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'in_progress', status = NULL, body = NULL,
         locked_until = EXCLUDED.locked_until, created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE k.expires_at < now() OR (k.state = 'in_progress' AND k.locked_until < now() AND k.fingerprint = EXCLUDED.fingerprint)
       RETURNING 1`,
      [scopeKey(ref), id, ref.fingerprint, this.leaseMs, KEY_TTL_HOURS],
    );
    if (taken.rowCount === 1) return { kind: 'claimed' };
    const { rows } = await this.pool.query<{ fingerprint: string; state: string; status: number | null; body: string | null }>(
      'SELECT fingerprint, state, status, body FROM idempotency_keys WHERE scope = $1 AND key = $2',
      [scopeKey(ref), id],
    );
    const row = rows[0];
    // Deleted between the two statements (a failed first request released it): claim again.
    if (!row) return this.claim(ref);
    if (row.fingerprint !== ref.fingerprint) return { kind: 'other_request' };
    if (row.state !== 'done') return { kind: 'in_progress' };
    return { kind: 'done', status: row.status!, body: row.body === null ? null : JSON.parse(open(ref, row.body)) };
  }

  async complete(ref: KeyRef, status: number, body: unknown): Promise<void> {
    await this.pool.query(
      `UPDATE idempotency_keys SET state = 'done', status = $4, body = $5 WHERE scope = $1 AND key = $2 AND fingerprint = $3 AND state = 'in_progress'`,
      [scopeKey(ref), rowKey(ref), ref.fingerprint, status, seal(ref, JSON.stringify(body ?? null))],
    );
  }

  /** The request ended without an answer worth keeping (5xx): a retry runs it again. */
  async release(ref: KeyRef): Promise<void> {
    await this.pool.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND fingerprint = $3 AND state = 'in_progress'`, [scopeKey(ref), rowKey(ref), ref.fingerprint]);
  }

  /** Removes expired rows; returns how many. */
  async sweep(): Promise<number> {
    return (await this.pool.query('DELETE FROM idempotency_keys WHERE expires_at < now()')).rowCount ?? 0;
  }
}

/** Scopes hold client input (a player id): stored as a hash, any bytes are fine. */
function scopeKey(ref: KeyRef): string {
  return digest('scope', ref.scope).toString('base64url');
}

function rowKey(ref: KeyRef): string {
  return digest('row', ref.scope, ref.key).toString('base64url');
}

function seal(ref: KeyRef, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', digest('seal', ref.scope, ref.key), iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function open(ref: KeyRef, stored: string): string {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', digest('seal', ref.scope, ref.key), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
