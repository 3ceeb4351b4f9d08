// Prisma CLI config: the JS schema engine over the pg adapter, because the classic engine is a binary
// download that these machines cannot fetch. Used by `prisma generate` and to author migrations.
import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join(__dirname, 'prisma', 'schema.prisma'),
  async adapter() {
    return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  },
});
