// A database outage is a 503 (with the spec's body), never a 500, and never the end of the process: real
// PostgreSQL stopped fast and immediately under a pg pool, a checked-out client and Prisma.
import { Pool } from 'pg';
import { isInfrastructureError as isDependencyOutage } from '@spawnpoint/messaging';
import { closeReadModels, createReadModels, outageSafe } from '@spawnpoint/read-models';
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
