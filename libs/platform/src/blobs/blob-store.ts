// Blobs in PostgreSQL (migration 0012, docs/adr/0013-artifacts-in-postgresql.md): uploaded ZIPs and
// unpacked builds, reachable by every process that reaches the database, so none needs another's disk.
// A write streams 1 MiB bytea rows under a fresh id and turns complete in one transaction at the end;
// readers only ever see complete blobs, and read them chunk by chunk (memory stays bounded for 2 GiB).
// A small pool of its own, so a long transfer never queues the read models' queries behind it.
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Pool } from 'pg';

export const BLOB_CHUNK_BYTES = 1024 * 1024;
/** Advisory-lock namespace serialising the completions of one key (a replace is delete + mark). */
const COMPLETE_LOCK = 7_402_013;

export interface BlobInfo {
  key: string;
  sizeBytes: number;
  sha256: string;
}

export class BlobGone extends Error {}

export class BlobStore {
  private readonly pool: Pool;
  private readonly chunkBytes: number;

  constructor(connectionString: string, options: { poolSize?: number; chunkBytes?: number } = {}) {
    this.pool = new Pool({ connectionString, max: options.poolSize ?? 4, allowExitOnIdle: true });
    // A dropped idle connection is discarded by the pool; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
    // A client dropped while checked out (a long transaction, a lock) emits 'error' too: the query it runs fails instead.
    this.pool.on('connect', (c) => c.on('error', () => undefined));
    this.chunkBytes = options.chunkBytes ?? BLOB_CHUNK_BYTES;
  }

  /**
   * Stores `source` under `key`, replacing the key's previous blob once this one is whole. If `source`
   * fails (or the database does), what was written is removed and the error thrown; if the process
   * dies, an incomplete blob stays behind for removeIncomplete.
   */
  async put(key: string, source: AsyncIterable<Buffer | string>): Promise<BlobInfo> {
    const id = randomUUID();
    await this.pool.query('INSERT INTO blobs (id, key) VALUES ($1, $2)', [id, key]);
    const hash = createHash('sha256');
    let sizeBytes = 0;
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = (n: number): Buffer => {
      const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
      pending = all.length > n ? [all.subarray(n)] : [];
      pendingBytes = all.length - Math.min(n, all.length);
      return all.subarray(0, n);
    };
    try {
      for await (const piece of source) {
        const buf = typeof piece === 'string' ? Buffer.from(piece) : piece;
        hash.update(buf);
        sizeBytes += buf.length;
        pending.push(buf);
        pendingBytes += buf.length;
        while (pendingBytes >= this.chunkBytes) await this.writeChunk(key, id, seq++, take(this.chunkBytes));
      }
      if (pendingBytes > 0) await this.writeChunk(key, id, seq++, take(pendingBytes));
      const sha256 = hash.digest('hex');
      await this.complete(key, id, { sizeBytes, sha256, chunks: seq });
      return { key, sizeBytes, sha256 };
    } catch (err) {
      await this.pool.query('DELETE FROM blobs WHERE id = $1', [id]).catch(() => undefined);
      throw err;
    }
  }

  /** The complete blob under `key`, or null. */
  async head(key: string): Promise<BlobInfo | null> {
    const { rows } = await this.pool.query<{ size_bytes: string; sha256: string }>('SELECT size_bytes, sha256 FROM blobs WHERE key = $1 AND complete', [key]);
    return rows[0] ? { key, sizeBytes: Number(rows[0].size_bytes), sha256: rows[0].sha256 } : null;
  }

  /**
   * The complete blob under `key` as a stream that reads one chunk per pull (null: no such blob). The
   * stream fails if the blob is removed while read, or if its bytes do not match its size and SHA-256.
   */
  async open(key: string): Promise<Readable | null> {
    const { rows } = await this.pool.query<{ id: string; size_bytes: string; sha256: string; chunks: number }>(
      'SELECT id, size_bytes, sha256, chunks FROM blobs WHERE key = $1 AND complete', [key],
    );
    if (!rows[0]) return null;
    const { id, chunks, sha256 } = rows[0];
    const sizeBytes = Number(rows[0].size_bytes);
    const pool = this.pool;
    async function* read(): AsyncGenerator<Buffer> {
      const hash = createHash('sha256');
      let size = 0;
      for (let seq = 0; seq < chunks; seq++) {
        const r = await pool.query<{ data: Buffer }>({ name: 'blob_chunk', text: 'SELECT data FROM blob_chunks WHERE blob_id = $1 AND seq = $2', values: [id, seq] });
        if (!r.rows[0]) throw new BlobGone(`blob ${key} was removed while it was read`);
        const data = r.rows[0].data;
        hash.update(data);
        size += data.length;
        yield data;
      }
      if (size !== sizeBytes || hash.digest('hex') !== sha256) throw new Error(`blob ${key} is damaged: its bytes do not match its size and SHA-256`);
    }
    return Readable.from(read(), { objectMode: false });
  }

  /** Removes the key's blob, complete or being written (a writer under way then fails). True if there was one. */
  async delete(key: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM blobs WHERE key = $1', [key]);
    return (rowCount ?? 0) > 0;
  }

  /** Removes incomplete blobs (crashed or abandoned writes) last written before `before`; their keys. */
  async removeIncomplete(before: Date): Promise<string[]> {
    const { rows } = await this.pool.query<{ key: string }>('DELETE FROM blobs WHERE NOT complete AND touched_at < $1 RETURNING key', [before]);
    return rows.map((r) => r.key);
  }

  /** Keys of complete blobs under `prefix` written before `before` (candidates for a sweep). */
  async completedBefore(prefix: string, before: Date): Promise<string[]> {
    const { rows } = await this.pool.query<{ key: string }>(
      "SELECT key FROM blobs WHERE complete AND starts_with(key, $1) AND touched_at < $2 ORDER BY key", [prefix, before],
    );
    return rows.map((r) => r.key);
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  private async writeChunk(key: string, id: string, seq: number, data: Buffer): Promise<void> {
    try {
      await this.pool.query({
        name: 'blob_write_chunk',
        text: 'WITH c AS (INSERT INTO blob_chunks (blob_id, seq, data) VALUES ($1, $2, $3)) UPDATE blobs SET touched_at = now() WHERE id = $1',
        values: [id, seq, data],
      });
    } catch (err) {
      // foreign_key_violation: the header went (delete or sweep) while this write was under way.
      if ((err as { code?: string }).code === '23503') throw new BlobGone(`blob ${key} was removed while it was written`);
      throw err;
    }
  }

  /** Marks the write complete and drops the key's previous blob, atomically; one completion of a key at a time. */
  private async complete(key: string, id: string, info: { sizeBytes: number; sha256: string; chunks: number }): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [COMPLETE_LOCK, key]);
      await client.query('DELETE FROM blobs WHERE key = $1 AND complete', [key]);
      const { rowCount } = await client.query(
        'UPDATE blobs SET complete = true, size_bytes = $2, sha256 = $3, chunks = $4, touched_at = now() WHERE id = $1',
        [id, info.sizeBytes, info.sha256, info.chunks],
      );
      if (rowCount !== 1) throw new BlobGone(`blob ${key} was removed while it was written`);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
