// Projections on real PostgreSQL (Prisma and plain SQL): a command's reply can wait for its own write
// (read-your-writes), replays are harmless, and the read models rebuild from zero identically.
import type { PostgresEventStore } from '@spawnpoint/eventstore';
import { readModelsPool, type ReadModels } from '@spawnpoint/read-models';
import { captureLogs } from '../../../logging/src/testing';
import { createProjectionTestBed, ProjectionTestBed } from '../../../../test/support/projections';
import { Projection, ProjectionRunner } from './projection-runner';

const checkpointsProjection = (name: string): Projection => ({
  name,
  categories: ['widget'],
  // Stores each event's revision as the checkpoint row of a widget: an upsert, so replays are no-ops.
  async apply(event, tx) {
    await tx.checkpoint.upsert({
      where: { name: `${name}:${event.streamId}` },
      create: { name: `${name}:${event.streamId}`, position: BigInt(event.revision) },
      update: { position: BigInt(event.revision) },
    });
  },
});

describe('ProjectionRunner', () => {
  let bed: ProjectionTestBed;
  let store: PostgresEventStore;
  let models: ReadModels;

  beforeAll(async () => {
    bed = await createProjectionTestBed('proj');
    ({ store, models } = bed);
  });
  afterAll(() => bed?.close());

  const rows = async (prefix: string) =>
    (await models.checkpoint.findMany({ where: { name: { startsWith: `${prefix}:` } }, orderBy: { name: 'asc' } })).map((r) => [r.name, r.position]);

  it('lets a reply wait until its own append is readable', async () => {
    const runner = new ProjectionRunner(store, models, [checkpointsProjection('ryw')]);
    await runner.start();
    try {
      for (let i = 0; i < 20; i++) {
        const { position } = await store.appendToStream(`widget-${i}`, [{ type: 'Made', data: {} }], 'no_stream');
        await runner.waitFor(position, `widget-${i}`);
        expect(await models.checkpoint.findUnique({ where: { name: `ryw:widget-${i}` } })).not.toBeNull();
      }
      // A position in a category no projection covers resolves at once.
      await expect(runner.waitFor(10_000_000n, 'other-1', 50)).resolves.toBeUndefined();
      await expect(runner.waitFor(10_000_000n, 'widget-x', 100)).rejects.toThrow(/did not reach/);
    } finally {
      await runner.stop();
    }
  });

  it('resumes from its checkpoint and rebuilds from zero to the same rows', async () => {
    for (let i = 0; i < 5; i++) await store.appendToStream('widget-r', [{ type: 'Changed', data: {} }], i === 0 ? 'no_stream' : i - 1);
    const first = new ProjectionRunner(store, models, [checkpointsProjection('rb')]);
    await first.start();
    await first.stop();
    const built = await rows('rb');
    expect(built).toContainEqual(['rb:widget-r', 4n]);

    await store.appendToStream('widget-r', [{ type: 'Changed', data: {} }], 4);
    const resumed = new ProjectionRunner(store, models, [checkpointsProjection('rb')]);
    await resumed.start();
    await resumed.stop();
    expect(await rows('rb')).toContainEqual(['rb:widget-r', 5n]);
    const afterResume = await rows('rb');

    await models.checkpoint.deleteMany({ where: { OR: [{ name: 'rb' }, { name: { startsWith: 'rb:' } }] } });
    const rebuilt = new ProjectionRunner(store, models, [checkpointsProjection('rb')]);
    await rebuilt.start();
    await rebuilt.stop();
    expect(await rows('rb')).toEqual(afterResume);
  });

  it('applies a burst in few transactions, and after a failed batch applies its events again one at a time with nothing lost or doubled', async () => {
    let failOnce = true;
    const applied: string[] = [];
    const flaky: Projection = {
      name: 'flaky',
      categories: ['gadget'],
      async apply(event, tx) {
        if (failOnce && event.revision === 3) {
          failOnce = false;
          throw new Error('transient');
        }
        await tx.checkpoint.upsert({
          where: { name: `flaky:${event.streamId}:${event.revision}` },
          create: { name: `flaky:${event.streamId}:${event.revision}`, position: event.position },
          update: {},
        });
      },
      applied: (event) => applied.push(`${event.streamId}:${event.revision}`),
    };
    const runner = new ProjectionRunner(store, models, [flaky]);
    await runner.start();
    const logs = captureLogs();
    try {
      let last = 0n;
      for (let i = 0; i < 50; i++) last = (await store.appendToStream('gadget-1', [{ type: 'Tick', data: { i } }], i === 0 ? 'no_stream' : i - 1)).position;
      await runner.waitFor(last, 'gadget-1', 15_000);
      const rows = await models.checkpoint.count({ where: { name: { startsWith: 'flaky:gadget-1:' } } });
      expect(rows).toBe(50);
      expect(failOnce).toBe(false);
      expect(logs.messages('error').some((m) => /projection flaky: a batch of \d+ event\(s\) failed; handling them one at a time/.test(m))).toBe(true);
      // Every event was reported applied once after its commit (the failed batch's never were).
      expect(new Set(applied).size).toBe(50);
      expect(applied).toHaveLength(50);
    } finally {
      logs.restore();
      await runner.stop();
    }
  });

  it('two replicas share a checkpoint: one that resubscribes after a database failure still hands every event to its in-memory copy', async () => {
    // The replica's database goes away for one batch (an infrastructure error: the runner resubscribes from
    // the checkpoint), while the other replica moves the shared checkpoint past the events it missed.
    let outage = false;
    const seen = { a: [] as number[], b: [] as number[] };
    const replica = (who: 'a' | 'b'): Projection => ({
      name: 'shared-book',
      categories: ['tome'],
      async applySql(events, sql) {
        if (who === 'a' && outage) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        await sql.query('SELECT 1');
      },
      applied: (event) => void seen[who].push(event.revision),
    });
    const a = new ProjectionRunner(store, models, [replica('a')]);
    const b = new ProjectionRunner(store, models, [replica('b')]);
    await a.start();
    await b.start();
    const logs = captureLogs();
    try {
      let last = 0n;
      const append = async (i: number) => (last = (await store.appendToStream('tome-1', [{ type: 'Page', data: { i } }], i === 0 ? 'no_stream' : i - 1)).position);
      for (let i = 0; i < 5; i++) await append(i);
      await a.waitFor(last, 'tome-1', 10_000);
      outage = true;
      for (let i = 5; i < 10; i++) await append(i);
      await b.waitFor(last, 'tome-1', 10_000);
      await new Promise((r) => setTimeout(r, 300)); // a's batch fails meanwhile; b has saved the checkpoint past it
      outage = false;
      for (let i = 10; i < 12; i++) await append(i);
      await a.waitFor(last, 'tome-1', 15_000);
      expect(logs.messages('error').some((m) => /projection shared-book failed; resubscribing from its checkpoint/.test(m))).toBe(true);
      expect([...new Set(seen.a)].sort((x, y) => x - y)).toEqual([...Array(12).keys()]);
      expect([...new Set(seen.b)].sort((x, y) => x - y)).toEqual([...Array(12).keys()]);
    } finally {
      logs.restore();
      await a.stop();
      await b.stop();
    }
  });

  it('plain-SQL projections: the batch and the checkpoint commit together; a failed batch rolls back and is applied again, exactly once', async () => {
    await models.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS sql_ticks (stream text, revision int, PRIMARY KEY (stream, revision))');
    let failOnce = true;
    const sqlProjection: Projection = {
      name: 'sql-ticks',
      categories: ['ticker'],
      async applySql(events, sql) {
        for (const e of events) {
          // A plain INSERT (no ON CONFLICT): a batch applied twice would fail on the primary key.
          await sql.query({ name: 'sql_ticks_insert', text: 'INSERT INTO sql_ticks VALUES ($1, $2)' }, [e.streamId, e.revision]);
          if (failOnce && e.revision === 7) {
            failOnce = false;
            throw new Error('transient');
          }
        }
      },
    };
    const runner = new ProjectionRunner(store, models, [sqlProjection]);
    await runner.start();
    const logs = captureLogs();
    try {
      let last = 0n;
      for (let i = 0; i < 30; i++) last = (await store.appendToStream('ticker-1', [{ type: 'Tick', data: {} }], i === 0 ? 'no_stream' : i - 1)).position;
      await runner.waitFor(last, 'ticker-1', 15_000);
      const ticks = await models.$queryRawUnsafe<{ revision: number }[]>('SELECT revision FROM sql_ticks WHERE stream = $1 ORDER BY revision', 'ticker-1');
      expect(ticks.map((t) => t.revision)).toEqual([...Array(30).keys()]);
      expect(failOnce).toBe(false);
      expect((await models.checkpoint.findUnique({ where: { name: 'sql-ticks' } }))?.position).toBe(last);
    } finally {
      logs.restore();
      await runner.stop();
    }
  });

  it('plain SQL: a batch commits without waiting for the WAL flush, and the pooled connection keeps the server setting after it (ADR-0018)', async () => {
    const seen: string[] = [];
    const asyncProjection: Projection = {
      name: 'async-commit',
      categories: ['flusher'],
      async applySql(events, sql) {
        const { rows: [row] } = await sql.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
        seen.push(row.synchronous_commit);
        await sql.query('SELECT 1');
      },
    };
    const pool = readModelsPool(models);
    const { rows: [before] } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    const runner = new ProjectionRunner(store, models, [asyncProjection]);
    await runner.start();
    try {
      const { position } = await store.appendToStream('flusher-1', [{ type: 'Flushed', data: {} }], 'no_stream');
      await runner.waitFor(position, 'flusher-1');
      expect(seen).toEqual(['off']);
      expect((await models.checkpoint.findUnique({ where: { name: 'async-commit' } }))?.position).toBe(position);
      // SET LOCAL ends with its transaction: every connection of the pool still has the server's setting.
      const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
      try {
        for (const c of clients) expect((await c.query('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe(before.synchronous_commit);
      } finally {
        for (const c of clients) c.release();
      }
    } finally {
      await runner.stop();
    }
  });

  it('under a steady stream holds a batch back for the minimum interval; waitFor, settle and waitForHead cut the wait short', async () => {
    const runner = new ProjectionRunner(store, models, [checkpointsProjection('linger')], { minBatchIntervalMs: 5_000 });
    await runner.start();
    const seen = async (stream: string) => (await models.checkpoint.findUnique({ where: { name: `linger:${stream}` } })) !== null;
    try {
      // After a quiet spell: applied at once.
      const first = await store.appendToStream('widget-l1', [{ type: 'Made', data: {} }], 'no_stream');
      const t0 = Date.now();
      await runner.waitFor(first.position, 'widget-l1');
      expect(Date.now() - t0).toBeLessThan(2_000);
      // Right after a commit: held back (nobody waits)...
      await store.appendToStream('widget-l2', [{ type: 'Made', data: {} }], 'no_stream');
      await new Promise((r) => setTimeout(r, 500));
      expect(await seen('widget-l2')).toBe(false);
      // ...until a reader settles the category.
      const t1 = Date.now();
      await runner.settle('widget-x');
      expect(Date.now() - t1).toBeLessThan(2_000);
      expect(await seen('widget-l2')).toBe(true);
      // A reply waiting for its write is not held back either.
      const third = await store.appendToStream('widget-l3', [{ type: 'Made', data: {} }], 'no_stream');
      const t2 = Date.now();
      await runner.waitFor(third.position, 'widget-l3');
      expect(Date.now() - t2).toBeLessThan(2_000);
      expect(await seen('widget-l3')).toBe(true);
      // Nor a reader that needs every event of the category committed so far (waitForHead); an event of a
      // category no projection here covers, committed after it, is not waited for.
      await store.appendToStream('widget-l4', [{ type: 'Made', data: {} }], 'no_stream');
      await store.appendToStream('elsewhere-1', [{ type: 'Other', data: {} }], 'no_stream');
      const t3 = Date.now();
      await runner.waitForHead('widget-x');
      expect(Date.now() - t3).toBeLessThan(2_000);
      expect(await seen('widget-l4')).toBe(true);
    } finally {
      await runner.stop();
    }
  });

  it("a projection's own minBatchIntervalMs wins over the runner's: 0 applies a batch right after the last one committed", async () => {
    const runner = new ProjectionRunner(store, models, [{ ...checkpointsProjection('eager'), minBatchIntervalMs: 0 }], { minBatchIntervalMs: 5_000 });
    await runner.start();
    const seen = async (stream: string) => (await models.checkpoint.findUnique({ where: { name: `eager:${stream}` } })) !== null;
    try {
      await store.appendToStream('widget-e1', [{ type: 'Made', data: {} }], 'no_stream');
      const until = Date.now() + 2_000;
      while (!(await seen('widget-e1')) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      // right after that commit, nobody waiting: the runner's 5 s would hold it back; this projection's 0 does not
      await store.appendToStream('widget-e2', [{ type: 'Made', data: {} }], 'no_stream');
      const t0 = Date.now();
      while (!(await seen('widget-e2')) && Date.now() - t0 < 2_000) await new Promise((r) => setTimeout(r, 20));
      expect(await seen('widget-e2')).toBe(true);
      expect(Date.now() - t0).toBeLessThan(1_000);
    } finally {
      await runner.stop();
    }
  });

  it('an urgent event is not held back for the interval: committed with what waits beside it, while other events still wait', async () => {
    const urgent = { ...checkpointsProjection('urgent'), urgent: (e: { type: string }) => e.type === 'Running' };
    const runner = new ProjectionRunner(store, models, [urgent], { minBatchIntervalMs: 5_000 });
    await runner.start();
    const seen = async (stream: string) => (await models.checkpoint.findUnique({ where: { name: `urgent:${stream}` } })) !== null;
    const within = async (stream: string, ms: number) => {
      const t0 = Date.now();
      while (!(await seen(stream)) && Date.now() - t0 < ms) await new Promise((r) => setTimeout(r, 20));
      return seen(stream);
    };
    try {
      // (waitFor: past the catch-up of the earlier tests' events, whose commit would hold this one back)
      const first = await store.appendToStream('widget-u1', [{ type: 'Made', data: {} }], 'no_stream');
      await runner.waitFor(first.position, 'widget-u1');
      // right after that commit: an ordinary event waits out the runner's 5 s...
      await store.appendToStream('widget-u2', [{ type: 'Made', data: {} }], 'no_stream');
      expect(await within('widget-u2', 500)).toBe(false);
      // ...until an urgent one arrives: both are committed at once
      await store.appendToStream('widget-u3', [{ type: 'Running', data: {} }], 'no_stream');
      expect(await within('widget-u3', 1_000)).toBe(true);
      expect(await seen('widget-u2')).toBe(true);
      // and an urgent event right after a commit is not held back either
      await store.appendToStream('widget-u4', [{ type: 'Running', data: {} }], 'no_stream');
      expect(await within('widget-u4', 1_000)).toBe(true);
    } finally {
      await runner.stop();
    }
  });

  it('plain SQL: a batch that writes nothing opens no transaction; its checkpoint is saved a moment later (never moved back) or at stop', async () => {
    await models.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS sql_notes (stream text, revision int, PRIMARY KEY (stream, revision))');
    // Writes only `Noted` events; `Ignored` ones (most of a busy category, as lobby state changes are to the tickets) write nothing.
    const picky: Projection = {
      name: 'sql-picky',
      categories: ['note'],
      minBatchIntervalMs: 0,
      async applySql(events, sql) {
        for (const e of events) if (e.type === 'Noted') await sql.query('INSERT INTO sql_notes VALUES ($1, $2) ON CONFLICT DO NOTHING', [e.streamId, e.revision]);
      },
    };
    const stored = async () => (await models.checkpoint.findUnique({ where: { name: 'sql-picky' } }))?.position ?? 0n;
    const pool = readModelsPool(models);
    const connect = jest.spyOn(pool, 'connect');
    const runner = new ProjectionRunner(store, models, [picky]);
    await runner.start();
    try {
      const before = await stored();
      connect.mockClear();
      let last = 0n;
      for (let i = 0; i < 5; i++) last = (await store.appendToStream('note-quiet', [{ type: 'Ignored', data: {} }], i === 0 ? 'no_stream' : i - 1)).position;
      await runner.waitFor(last, 'note-quiet');
      expect(connect).not.toHaveBeenCalled();
      expect(await stored()).toBe(before);
      const until = Date.now() + 3_000;
      while ((await stored()) < last && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(await stored()).toBe(last);

      // A writing batch saves its checkpoint with its rows, as before.
      const noted = (await store.appendToStream('note-loud', [{ type: 'Noted', data: {} }], 'no_stream')).position;
      await runner.waitFor(noted, 'note-loud');
      expect(await stored()).toBe(noted);
      // An ignored event after it: saved at stop at the latest.
      const tail = (await store.appendToStream('note-quiet', [{ type: 'Ignored', data: {} }], 4)).position;
      await runner.waitFor(tail, 'note-quiet');
    } finally {
      await runner.stop();
      connect.mockRestore();
    }
    expect(await stored()).toBeGreaterThanOrEqual((await store.headPosition(['note']))!);
  });
});
