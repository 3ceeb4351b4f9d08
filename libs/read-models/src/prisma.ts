import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/client';
import { outageSafe } from './outage-safe-pool';
import { tracedPool } from './traced-pool';

export type ReadModels = PrismaClient;

const pools = new WeakMap<ReadModels, Pool>();

/** A Prisma client over the pg driver adapter (no query-engine binary needed). */
export function createReadModels(connectionString: string, poolSize = 10): ReadModels {
  // Traced: a span per statement inside a sampled trace (traced-pool.ts).
  const pool = outageSafe(tracedPool({ connectionString, max: poolSize, allowExitOnIdle: true }));
  const db = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(db, pool);
  return db;
}

/** Disconnects Prisma and ends the pool (Prisma ends it only if it ever connected). */
export async function closeReadModels(db: ReadModels): Promise<void> {
  await db.$disconnect();
  const pool = pools.get(db);
  if (pool && !pool.ended) await pool.end();
}

/**
 * The pg pool under a client made by createReadModels, for plain-SQL hot paths: a Prisma interactive
 * transaction costs ~1.2 ms of CPU here against ~0.2 ms for the same statements on a pg connection.
 */
export function readModelsPool(db: ReadModels): Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error('read models were not created by createReadModels()');
  return pool;
}
