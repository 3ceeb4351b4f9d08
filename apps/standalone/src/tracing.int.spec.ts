// One trace spans gateway → bus → service → event store: a caller's traceparent comes back in the
// response, the bus handler's span shares its trace id, and so do the events the command appended.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { setupTracing, shutdownTracing } from '@spawnpoint/platform';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { Standalone, startStandalone } from './standalone';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

describe('tracing across gateway, bus and event store', () => {
  const exporter = new InMemorySpanExporter();
  let db: TestDatabase;
  let platform: Standalone;
  let dataDir: string;

  beforeAll(async () => {
    setupTracing('test', { exporter });
    db = await createTestDatabase('trace');
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-trace-'));
    platform = await startStandalone({ DATABASE_URL: db.url, SPAWNPOINT_DATA_DIR: dataDir, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', PATH: process.env.PATH });
  }, 60_000);

  afterAll(async () => {
    await platform?.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    await shutdownTracing();
  });

  it('continues the caller trace and returns it in traceparent', async () => {
    const res = await fetch(`${platform.url}/api/v3/servers`, { headers: { 'api-key': platform.project.serverKey, traceparent: TRACEPARENT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('traceparent')).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE_ID);
    expect(spans.map((s) => s.name)).toEqual(expect.arrayContaining(['HTTP GET /api/v3/servers', 'bus servers.list']));
  });

  it('records the trace in the metadata of the events a request appends', async () => {
    const res = await fetch(`${platform.url}/api/v3/builds/upload-url?name=traced`, {
      method: 'POST', headers: { 'api-key': platform.project.serverKey, traceparent: TRACEPARENT },
    });
    expect(res.status).toBe(201);
    const { build_id } = (await res.json()) as { build_id: string };
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query(`SELECT metadata FROM events WHERE stream_id = $1`, [`build-${build_id}`]);
      expect(rows).toHaveLength(1);
      expect(rows[0].metadata.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-`));
      expect(rows[0].metadata.projectId).toBe(platform.project.projectId);
      expect(rows[0].metadata.correlationId).toBe(TRACE_ID);
    } finally {
      await c.end();
    }
  });

  it('starts a fresh trace when the caller sends none', async () => {
    const res = await fetch(`${platform.url}/api/health`);
    const tp = res.headers.get('traceparent');
    expect(tp).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(tp).not.toContain(TRACE_ID);
  });
});
