import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export type ReadModels = PrismaClient;

/** A Prisma client over the pg driver adapter (no query-engine binary needed). */
export function createReadModels(connectionString: string, poolSize = 10): ReadModels {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: poolSize }) });
}
