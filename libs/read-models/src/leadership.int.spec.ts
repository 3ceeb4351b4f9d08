// One leader among replicas on real PostgreSQL: the lock is taken by one, held, given up on close, and
// lost (told once) when the leader's session is killed, after which a stand-by takes it.
import { Pool } from 'pg';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { Leadership } from './leadership';

describe('Leadership', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase('leadership');
    pool = new Pool({ connectionString: database.url, max: 2 });
  }, 60_000);
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('one of two leads; the other takes over once the first closes', async () => {
    const a = new Leadership(pool, 1, 'job');
    const b = new Leadership(pool, 1, 'job');
    const other = new Leadership(pool, 1, 'another job');
    try {
      expect(await a.try()).toBe('new');
      expect(await b.try()).toBe(false);
      expect(await a.try()).toBe('held');
      expect(await other.try()).toBe('new');
      expect([a.leading, b.leading]).toEqual([true, false]);
      await a.close();
      expect(await a.try()).toBe(false);
      expect(await b.try()).toBe('new');
    } finally {
      await Promise.all([a, b, other].map((l) => l.close()));
    }
  });

  it('a leader whose session dies is told once, and a stand-by takes the lead', async () => {
    let lost = 0;
    const a = new Leadership(pool, 2, 'job', () => lost++);
    const b = new Leadership(pool, 2, 'job');
    try {
      expect(await a.try()).toBe('new');
      expect(await b.try()).toBe(false);
      const { rows } = await pool.query<{ pid: number }>(
        `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid = 2 AND l.granted`,
      );
      expect(rows).toHaveLength(1);
      await pool.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      for (let i = 0; i < 100 && lost === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(lost).toBe(1);
      expect(a.leading).toBe(false);
      expect(await b.try()).toBe('new');
      // The one that lost stands by now.
      expect(await a.try()).toBe(false);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
