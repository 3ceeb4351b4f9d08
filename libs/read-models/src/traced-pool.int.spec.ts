// A span per read-model statement on real PostgreSQL: Prisma's queries and plain SQL on the pool (a
// checkout and pool.query), each under the span that was open when it was asked, even when the pool is
// exhausted and one caller's release hands the client to another; none outside a trace.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { installTracing, type TracingHarness } from '../../messaging/src/testing/tracing-harness';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { migrateReadModels } from './migrate';
import { closeReadModels, createReadModels, readModelsPool, ReadModels } from './prisma';
import { statementAttributes } from './traced-pool';

describe('read-model statements as spans', () => {
  let database: TestDatabase;
  let db: ReadModels;
  let tracing: TracingHarness;

  beforeAll(async () => {
    database = await createTestDatabase('rmspans');
    await migrateReadModels(database.url);
    // One connection: concurrent statements wait for each other's release.
    db = createReadModels(database.url, 1);
  }, 60_000);
  afterAll(async () => {
    await closeReadModels(db);
    await database.drop();
  });
  beforeEach(() => { tracing = installTracing(); });
  afterEach(() => tracing.dispose());

  const inTrace = (name: string, fn: () => Promise<unknown>) => trace.getTracer('test').startActiveSpan(name, async (span) => {
    try {
      await fn();
      return span.spanContext().spanId;
    } finally {
      span.end();
    }
  });
  const statements = () => tracing.exporter.getFinishedSpans().filter((s) => s.attributes['db.system'] === 'postgresql');

  it('records Prisma\'s queries and plain SQL as CLIENT spans of the open span', async () => {
    const parent = await inTrace('request', async () => {
      await db.checkpoint.findUnique({ where: { name: 'nothing' } });
      const client = await readModelsPool(db).connect();
      try {
        await client.query('SELECT count(*) FROM checkpoints WHERE name = $1', ['x']);
      } finally {
        client.release();
      }
      await readModelsPool(db).query('UPDATE checkpoints SET position = 0 WHERE name = $1', ['x']);
    });
    const spans = statements();
    expect(spans.length).toBeGreaterThanOrEqual(3);
    for (const span of spans) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.parentSpanContext?.spanId).toBe(parent);
      expect(span.attributes['db.name']).toBe(database.name);
    }
    const prisma = spans.find((s) => String(s.attributes['db.statement']).includes('"checkpoints"'))!;
    expect(prisma.attributes).toMatchObject({ 'db.operation': 'SELECT', 'db.collection.name': 'public.checkpoints' });
    expect(spans.find((s) => s.name === 'SELECT checkpoints')?.attributes['db.statement']).toBe('SELECT count(*) FROM checkpoints WHERE name = $1');
    expect(spans.find((s) => s.name === 'UPDATE checkpoints')?.attributes['db.operation']).toBe('UPDATE');
    // Values are parameters: never in the span.
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('nothing');
  });

  it('keeps each statement under its own caller while callers queue for the one connection', async () => {
    const parents = await Promise.all(['a', 'b', 'c', 'd'].map((name) => inTrace(name, () => readModelsPool(db).query(`SELECT pg_sleep(0.02), '${name}' AS caller`))));
    const spans = statements();
    expect(spans).toHaveLength(4);
    for (const [i, name] of ['a', 'b', 'c', 'd'].entries()) {
      const span = spans.find((s) => String(s.attributes['db.statement']).includes(`'${name}'`))!;
      expect({ name, parent: span.parentSpanContext?.spanId }).toEqual({ name, parent: parents[i] });
    }
  });

  it('marks a failed statement', async () => {
    await inTrace('request', () => readModelsPool(db).query('SELECT * FROM no_such_table').catch(() => undefined));
    const [span] = statements();
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.events[0].attributes?.['exception.message']).toMatch(/no_such_table/);
  });

  it('opens no span outside a trace', async () => {
    await db.checkpoint.findMany();
    await readModelsPool(db).query('SELECT 1');
    expect(statements()).toEqual([]);
  });

  it('names the operation and the table, and shortens a long statement', () => {
    expect(statementAttributes('  insert INTO "public"."servers" (id) VALUES ($1)')).toMatchObject({ 'db.operation': 'INSERT', 'db.collection.name': 'public.servers' });
    expect(statementAttributes('BEGIN')).toMatchObject({ 'db.operation': 'BEGIN' });
    expect(statementAttributes('BEGIN')).not.toHaveProperty('db.collection.name');
    expect(String(statementAttributes(`SELECT ${'x,'.repeat(2000)}1`)['db.statement'])).toHaveLength(2001);
  });
});
