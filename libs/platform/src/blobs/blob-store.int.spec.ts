// The blob store on real PostgreSQL: multi-chunk round trips read back one chunk per pull, replacing and
// deleting, a writer whose source fails leaves nothing, a crashed writer's blob is never readable and is
// swept, and concurrent writers of different keys keep their bytes apart.
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { migrateReadModels } from '@spawnpoint/read-models';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { BlobGone, BlobStore } from './blob-store';

const CHUNK = 64 * 1024;

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** `bytes` handed over in pieces of `piece` bytes (not aligned with the chunks). */
async function* pieces(bytes: Buffer, piece = 10_000): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += piece) yield bytes.subarray(i, i + piece);
}

describe('BlobStore (PostgreSQL)', () => {
  let db: TestDatabase;
  let blobs: BlobStore;
  let sql: Client;
  const chunkRows = async (key: string) =>
    Number((await sql.query('SELECT count(*) AS n FROM blob_chunks c JOIN blobs b ON b.id = c.blob_id WHERE b.key = $1', [key])).rows[0].n);
  const allChunkRows = async () => Number((await sql.query('SELECT count(*) AS n FROM blob_chunks')).rows[0].n);

  beforeAll(async () => {
    db = await createTestDatabase('blobs');
    await migrateReadModels(db.url);
    blobs = new BlobStore(db.url, { chunkBytes: CHUNK });
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await blobs?.close();
    await db?.drop();
  });

  it('round-trips a multi-chunk blob, with its size and SHA-256', async () => {
    const bytes = randomBytes(CHUNK * 3 + 123);
    const info = await blobs.put('test/round-trip', pieces(bytes));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(info).toEqual({ key: 'test/round-trip', sizeBytes: bytes.length, sha256 });
    expect(await blobs.head('test/round-trip')).toEqual(info);
    expect(await chunkRows('test/round-trip')).toBe(4);
    expect((await readAll((await blobs.open('test/round-trip'))!)).equals(bytes)).toBe(true);
    // An empty blob is a blob too.
    await blobs.put('test/empty', pieces(Buffer.alloc(0)));
    expect((await readAll((await blobs.open('test/empty'))!)).length).toBe(0);
    expect(await blobs.open('test/never-written')).toBeNull();
  });

  it('reads as a stream: a chunk per pull, nothing read ahead of the consumer', async () => {
    const bytes = randomBytes(CHUNK * 8);
    await blobs.put('test/streamed', pieces(bytes, CHUNK * 3));
    const stream = (await blobs.open('test/streamed'))!;
    const first = await new Promise<Buffer>((resolve) => stream.once('data', (d: Buffer) => { stream.pause(); resolve(d); }));
    expect(first.equals(bytes.subarray(0, CHUNK))).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    // Paused after one chunk: at most the next one is buffered.
    expect(stream.readableLength).toBeLessThanOrEqual(CHUNK);
    const rest = await readAll(stream);
    expect(Buffer.concat([first, rest]).equals(bytes)).toBe(true);
  });

  it('replaces a key once the new blob is whole, and deletes', async () => {
    await blobs.put('test/replace', pieces(Buffer.from('first version')));
    await blobs.put('test/replace', pieces(Buffer.from('second version')));
    expect((await readAll((await blobs.open('test/replace'))!)).toString()).toBe('second version');
    expect(Number((await sql.query("SELECT count(*) AS n FROM blobs WHERE key = 'test/replace'")).rows[0].n)).toBe(1);
    expect(await blobs.delete('test/replace')).toBe(true);
    expect(await blobs.open('test/replace')).toBeNull();
    expect(await blobs.head('test/replace')).toBeNull();
    expect(await chunkRows('test/replace')).toBe(0);
    expect(await blobs.delete('test/replace')).toBe(false);
  });

  it('removes what a failing source wrote, and throws its error', async () => {
    const before = await allChunkRows();
    async function* failing(): AsyncGenerator<Buffer> {
      yield randomBytes(CHUNK * 2);
      throw new Error('client went away');
    }
    await expect(blobs.put('test/failed', failing())).rejects.toThrow('client went away');
    expect(await blobs.open('test/failed')).toBeNull();
    expect(Number((await sql.query("SELECT count(*) AS n FROM blobs WHERE key = 'test/failed'")).rows[0].n)).toBe(0);
    expect(await allChunkRows()).toBe(before);
  });

  it('never shows a crashed write (the writer lost its database mid-blob); a sweep removes it, not fresh writes', async () => {
    // A complete older version stays readable while a newer write of the key is under way and after it died.
    await blobs.put('test/crashed', pieces(Buffer.from('the complete version')));
    const crashing = new BlobStore(db.url, { chunkBytes: CHUNK });
    let wrote!: () => void;
    const twoChunks = new Promise<void>((resolve) => { wrote = resolve; });
    async function* hangs(): AsyncGenerator<Buffer> {
      yield randomBytes(CHUNK * 2 + 10);
      wrote();
      await new Promise(() => undefined); // never ends: the "process" dies here
    }
    void crashing.put('test/crashed', hangs()).catch(() => undefined);
    await twoChunks;
    await new Promise((r) => setTimeout(r, 100));
    await crashing.close();
    expect(Number((await sql.query("SELECT count(*) AS n FROM blobs WHERE key = 'test/crashed' AND NOT complete")).rows[0].n)).toBe(1);
    expect((await readAll((await blobs.open('test/crashed'))!)).toString()).toBe('the complete version');

    // Only writes untouched before the cut-off go: the crashed one is backdated, a fresh one is not.
    await sql.query("UPDATE blobs SET touched_at = now() - interval '2 hours' WHERE key = 'test/crashed' AND NOT complete");
    await sql.query("INSERT INTO blobs (id, key) VALUES (gen_random_uuid(), 'test/being-written')");
    expect(await blobs.removeIncomplete(new Date(Date.now() - 3600_000))).toEqual(['test/crashed']);
    expect(Number((await sql.query("SELECT count(*) AS n FROM blobs WHERE key = 'test/crashed'")).rows[0].n)).toBe(1);
    expect(await chunkRows('test/crashed')).toBe(1);
    expect(Number((await sql.query("SELECT count(*) AS n FROM blobs WHERE key = 'test/being-written'")).rows[0].n)).toBe(1);
    expect(await blobs.open('test/being-written')).toBeNull();
  });

  it('fails a write whose blob is deleted under it, and leaves nothing', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    async function* slow(): AsyncGenerator<Buffer> {
      yield randomBytes(CHUNK);
      await gate;
      yield randomBytes(CHUNK);
    }
    const writing = blobs.put('test/deleted-while-written', slow());
    await new Promise((r) => setTimeout(r, 200));
    expect(await blobs.delete('test/deleted-while-written')).toBe(true);
    release();
    await expect(writing).rejects.toBeInstanceOf(BlobGone);
    expect(await blobs.open('test/deleted-while-written')).toBeNull();
  });

  it('keeps concurrent writers of different keys apart', async () => {
    const contents = Array.from({ length: 6 }, (_, i) => randomBytes(CHUNK * 2 + i * 1000));
    await Promise.all(contents.map((bytes, i) => blobs.put(`test/concurrent/${i}`, pieces(bytes, 7_000 + i))));
    const back = await Promise.all(contents.map(async (_, i) => readAll((await blobs.open(`test/concurrent/${i}`))!)));
    back.forEach((bytes, i) => expect(bytes.equals(contents[i])).toBe(true));
    const before = new Date(Date.now() + 1000);
    expect(await blobs.completedBefore('test/concurrent/', before)).toEqual(contents.map((_, i) => `test/concurrent/${i}`));
    expect(await blobs.completedBefore('test/concurrent/', new Date(Date.now() - 3600_000))).toEqual([]);
  });

  it('streams a large blob with bounded memory', async () => {
    const big = new BlobStore(db.url); // 1 MiB chunks
    try {
      const size = 96 * 1024 * 1024;
      const block = randomBytes(256 * 1024);
      async function* generate(): AsyncGenerator<Buffer> {
        for (let sent = 0; sent < size; sent += block.length) yield block;
      }
      global.gc?.();
      const baseline = process.memoryUsage().rss;
      let peak = baseline;
      const sample = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
      try {
        const info = await big.put('test/large', generate());
        expect(info.sizeBytes).toBe(size);
        let read = 0;
        for await (const part of (await big.open('test/large'))!) read += (part as Buffer).length;
        expect(read).toBe(size);
      } finally {
        clearInterval(sample);
      }
      // Far below the blob's size: the bytes pass through a chunk at a time.
      expect(peak - baseline).toBeLessThan(64 * 1024 * 1024);
      await big.delete('test/large');
    } finally {
      await big.close();
    }
  }, 120_000);
});
