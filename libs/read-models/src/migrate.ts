// Applies the SQL migrations in ../migrations in name order, once each. The SQL is authored with
// `prisma migrate diff` (see docs/operations.md); applying it ourselves keeps start-up free of the
// Prisma CLI. An advisory lock makes concurrent starts (several replicas) safe.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');
const LOCK_KEY = 7_402_001;

export async function migrateReadModels(connectionString: string): Promise<string[]> {
  const client = new Client({ connectionString });
  client.on('error', () => undefined); // a dropped connection fails the statement running, not the process
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query('CREATE TABLE IF NOT EXISTS _read_model_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await client.query('SELECT name FROM _read_model_migrations')).rows.map((r) => r.name as string));
    for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()) {
      if (done.has(file)) continue;
      await client.query('BEGIN');
      try {
        await client.query(readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8'));
        await client.query('INSERT INTO _read_model_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
        applied.push(file);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`read-model migration ${file} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return applied;
}

/**
 * The migrations this build knows that the database has not applied yet (all of them when none ever
 * ran). Read-only: for a process that uses the tables but leaves migrating to the services (the gateway).
 */
export async function pendingReadModelMigrations(connectionString: string): Promise<string[]> {
  const client = new Client({ connectionString, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass('_read_model_migrations') IS NOT NULL AS exists");
    const done = rows[0].exists ? new Set((await client.query('SELECT name FROM _read_model_migrations')).rows.map((r) => r.name as string)) : new Set<string>();
    return readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && !done.has(f)).sort();
  } finally {
    await client.end().catch(() => undefined);
  }
}
