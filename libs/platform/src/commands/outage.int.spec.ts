// A database outage is a 503 (with the spec's body), never a 500, and never the end of the process: real
// PostgreSQL stopped fast and immediately under a pg pool, a checked-out client and Prisma.
import { Pool } from 'pg';
import { isInfrastructureError as isDependencyOutage } from '@spawnpoint/messaging';
import { closeReadModels, createReadModels, outageSafe, readModelsPool } from '@spawnpoint/read-models';
import { OwnPostgres, startOwnPostgres } from '../../../../test/support/own-services';
import { toErrorBody } from './errors';

jest.setTimeout(120_000);

let pg: OwnPostgres;
beforeAll(async () => { pg = await startOwnPostgres(); });
afterAll(async () => { await pg?.remove(); });

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

it.each(['fast', 'immediate'] as const)('%s stop: pool, checked-out client and Prisma fail as outages (503), the process lives on, and all work again after', async (mode) => {
  const pool = outageSafe(new Pool({ connectionString: pg.url, max: 3, connectionTimeoutMillis: 1000 }));
  const db = createReadModels(pg.url, 2);
  try {
    await pool.query('SELECT 1');
    await db.$queryRawUnsafe('SELECT 1');
    // A client checked out and waiting between statements (an advisory lock held while its work runs).
    const held = await pool.connect();
    await held.query('SELECT pg_advisory_lock(1)');
    await pg.stop(mode);
    await new Promise((r) => setTimeout(r, 300)); // its 'error' arrives while nobody queries: must not crash us
    const errors = [
      await failure(() => held.query('SELECT 1')),
      await failure(() => pool.query('SELECT 1')),
      await failure(() => db.$queryRawUnsafe('SELECT 1')),
      await failure(() => db.server.findMany({ take: 1 })),
    ];
    held.release(true);
    for (const err of errors) {
      expect([String(err), isDependencyOutage(err)]).toEqual([String(err), true]);
      expect(toErrorBody(err)).toEqual({ error: 'Service unavailable', status: 503, detail: expect.any(String) });
    }
    await pg.start();
    expect((await pool.query('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    expect(await db.$queryRawUnsafe('SELECT 1 AS n')).toEqual([{ n: 1 }]);
  } finally {
    await pool.end();
    await closeReadModels(db);
  }
});

it('a fault of ours stays a 500', async () => {
  const pool = outageSafe(new Pool({ connectionString: pg.url, max: 1 }));
  try {
    const err = await failure(() => pool.query('SELEC 1'));
    expect(isDependencyOutage(err)).toBe(false);
    expect(toErrorBody(err)).toEqual({ error: 'Internal error', status: 500 });
    expect(isDependencyOutage(new TypeError('x is undefined'))).toBe(false);
  } finally {
    await pool.end();
  }
});

it.each(['fast', 'immediate'] as const)('%s stop during Prisma transactions: no client leaks, the pool serves again at once after (it hung forever)', async (mode) => {
  const db = createReadModels(pg.url, 3);
  const pool = readModelsPool(db);
  try {
    await db.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS outage_leak (x int)');
    // Every client of the pool inside a transaction, one more waiting for a client, when the database goes.
    const inFlight = [
      ...[1, 2, 3].map(() => db.$transaction([db.$executeRawUnsafe('INSERT INTO outage_leak VALUES (1)'), db.$queryRawUnsafe('SELECT pg_sleep(2)')])),
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('INSERT INTO outage_leak VALUES (2)');
        await tx.$queryRawUnsafe('SELECT pg_sleep(2)');
      }),
    ].map((p) => p.then(() => 'committed', () => 'failed'));
    await new Promise((r) => setTimeout(r, 500));
    expect(pool.waitingCount).toBe(1);
    await pg.stop(mode);
    const settled = await Promise.race([Promise.all(inFlight), new Promise((r) => setTimeout(() => r('still waiting'), 10_000))]);
    expect(settled).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(pool.totalCount).toBe(0); // the dead clients were given back as broken, none held
    await pg.start();
    const after = await Promise.race([db.$executeRawUnsafe('INSERT INTO outage_leak VALUES (3)').then(() => 'written'), new Promise((r) => setTimeout(() => r('hung'), 10_000))]);
    expect(after).toBe('written');
  } finally {
    await closeReadModels(db);
  }
});
