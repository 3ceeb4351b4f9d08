// The OpenAPI document is generated from the code: every route Fastify serves must be in it, with
// its method, and nothing documented may be missing from the router.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { registeredRoutes } from '@spawnpoint/gateway';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { Standalone, startStandalone } from './standalone';

describe('OpenAPI 3.1 document', () => {
  let db: TestDatabase;
  let platform: Standalone;
  let dataDir: string;
  let doc: { openapi: string; paths: Record<string, Record<string, { responses: object; security?: unknown[] }>> };

  beforeAll(async () => {
    db = await createTestDatabase('openapi');
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-openapi-'));
    platform = await startStandalone({ DATABASE_URL: db.url, SPAWNPOINT_DATA_DIR: dataDir, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', PATH: process.env.PATH });
    doc = (await (await fetch(`${platform.url}/api/openapi.json`)).json()) as typeof doc;
  }, 60_000);

  afterAll(async () => {
    await platform?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\/$/, '');

  it('is OpenAPI 3.1 with api-key security', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(JSON.stringify(doc)).toContain('"apiKey"');
  });

  it('documents every route the gateway serves, and only those', () => {
    // /health: the same report at the root, for the hosted service's clients.
    const served = registeredRoutes.filter((r) => r.url.startsWith('/api') || r.url === '/health').map((r) => `${r.method} ${toOpenApiPath(r.url)}`).sort();
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort();
    expect(served.length).toBeGreaterThan(15);
    expect(documented).toEqual(served);
  });

  it('gives every operation a response schema or description and marks public routes', () => {
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        if (p === '/api/health' || p === '/api/openapi.json') expect(op.security).toEqual([]);
      }
    }
  });
});
