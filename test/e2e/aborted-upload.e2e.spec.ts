// An upload cut midway (the client closes the connection after part of the ZIP) or stalled (the client
// stops sending and keeps the connection open; SPAWNPOINT_UPLOAD_IDLE_MS is 1 s here): its partial blob is
// removed (a stalled one is answered 408 and its connection closed), the build stays `uploading` with its URL still valid, and the same URL then takes the whole
// ZIP to `ready`. Both modes, real HTTP over a raw socket; the upload blobs are looked at in the
// platform's database (standalone: its embedded PostgreSQL, on a port chosen here).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { client, eventually } from '../support/http';
import { freePort, Platform, startDistributed, startStandalone } from '../support/processes';

jest.setTimeout(180_000);

/** Upload blobs in the platform's database, whole or partial (the gateway writes them 1 MiB at a time). */
async function uploadBlobs(databaseUrl: string): Promise<{ key: string; chunks: number }[]> {
  const c = new Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ key: string; chunks: string }>(
      "SELECT b.key, (SELECT count(*) FROM blob_chunks c WHERE c.blob_id = b.id) AS chunks FROM blobs b WHERE starts_with(b.key, 'upload/')",
    );
    return rows.map((r) => ({ key: r.key, chunks: Number(r.chunks) }));
  } finally {
    await c.end();
  }
}

/** Sends the headers and `sent` bytes of a `declared`-byte body and waits until `partWritten` says the server stored some. */
async function partialUpload(url: string, declared: number, sent: number, partWritten: () => Promise<boolean>): Promise<net.Socket> {
  const u = new URL(url);
  const socket = net.connect(Number(u.port), u.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  socket.write(`PUT ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/zip\r\nContent-Length: ${declared}\r\n\r\n`);
  socket.write(Buffer.alloc(sent, 7));
  const until = Date.now() + 10_000;
  while (!(await partWritten()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  expect(await partWritten()).toBe(true);
  return socket;
}

function describeAbortedUpload(mode: string, start: () => Promise<{ platform: Platform; databaseUrl: string }>) {
  describe(`aborted upload (${mode})`, () => {
    let platform: Platform;
    let databaseUrl: string;
    const partWritten = async () => (await uploadBlobs(databaseUrl)).some((b) => b.chunks > 0);
    const noUploadBlobs = () => eventually(() => uploadBlobs(databaseUrl), (blobs) => blobs.length === 0, 10_000, 'no upload blob left');
    beforeAll(async () => { ({ platform, databaseUrl } = await start()); });
    afterAll(() => platform?.stop());

    it('removes the partial blob and leaves the build retryable with the same URL', async () => {
      const api = client(platform.baseUrl, platform.serverKey);
      const ticket = await api.post('/v3/builds/upload-url?name=cut');
      expect(ticket.status).toBe(201);

      const socket = await partialUpload(ticket.body.upload_url, 8 * 1024 * 1024, 2 * 1024 * 1024, partWritten);
      socket.destroy();
      await noUploadBlobs();
      expect((await api.get(`/v3/builds/${ticket.body.build_id}`)).body.status).toBe('uploading');

      const zip = path.join(os.tmpdir(), `sp-cut-${process.pid}-${Date.now()}.zip`);
      execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'examples', 'zip-build.js'), zip]);
      const put = await api.put(ticket.body.upload_url, readFileSync(zip), { 'content-type': 'application/zip' });
      expect(put.status).toBe(200);
      await eventually(() => api.get(`/v3/builds/${ticket.body.build_id}`), (r) => r.body.status === 'ready', 20_000, 'build ready');
      await noUploadBlobs();
    });

    it('cuts an upload that stalls, removes its partial blob, and leaves the build retryable', async () => {
      const api = client(platform.baseUrl, platform.serverKey);
      const ticket = await api.post('/v3/builds/upload-url?name=stall');
      const socket = await partialUpload(ticket.body.upload_url, 8 * 1024 * 1024, 2 * 1024 * 1024, partWritten);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      // The answer is read: the gateway answers 408 and closes the connection (ADR-0020).
      let answer = '';
      socket.on('data', (d: Buffer) => { answer += d.toString(); });
      try {
        // Nothing more is sent; the socket stays open from this side.
        await noUploadBlobs();
        await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the stalled connection was not closed')), 10_000))]);
        expect(answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(answer).toMatch(/connection: close/i);
      } finally {
        socket.destroy();
      }
      expect((await api.get(`/v3/builds/${ticket.body.build_id}`)).body.status).toBe('uploading');
    });
  });
}

const env = { SPAWNPOINT_UPLOAD_IDLE_MS: '1000' };
describeAbortedUpload('standalone', async () => {
  const pgPort = await freePort();
  const platform = await startStandalone({ portRange: '27200-27249', env: { ...env, SPAWNPOINT_PG_PORT: String(pgPort) } });
  return { platform, databaseUrl: `postgres://postgres:postgres@127.0.0.1:${pgPort}/spawnpoint` };
});
describeAbortedUpload('distributed', async () => {
  const platform = await startDistributed('27250-27299', env);
  return { platform, databaseUrl: platform.databaseUrl! };
});
