// npm start again on the same data dir: same project, same keys, same builds; servers whose process
// died with the platform are recorded stopped, never left running. SPAWNPOINT_DEV_*_KEY set the keys.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, eventually } from '../support/http';
import { startStandalone } from '../support/processes';

jest.setTimeout(180_000);

describe('standalone restart on the same data dir', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps the project, its keys, builds and server history', async () => {
    const zip = path.join(dataDir, 'game.zip');
    execFileSync(process.execPath, [path.join(__dirname, '..', '..', 'examples', 'zip-build.js'), zip]);

    const first = await startStandalone({ dataDir, portRange: '18000-18099' });
    const api = client(first.baseUrl, first.serverKey);
    const ticket = await api.post('/v3/builds/upload-url?name=default');
    await api.put(ticket.body.upload_url, readFileSync(zip), { 'content-type': 'application/zip' });
    await eventually(() => api.get(`/v3/builds/${ticket.body.build_id}`), (r) => r.body.status === 'ready', 20_000, 'build ready');
    const started = await api.post('/v3/servers/start', { name: 'survivor', region: 'eu-uk' });
    await eventually(() => api.get(`/v3/servers/${started.body.instance_id}`), (r) => r.body.status === 'running', 15_000, 'running');
    await first.stop();

    const second = await startStandalone({ dataDir, portRange: '18000-18099' });
    try {
      expect(second.serverKey).toBe(first.serverKey);
      expect(second.clientKey).toBe(first.clientKey);
      const again = client(second.baseUrl, second.serverKey);
      expect((await again.get(`/v3/builds/${ticket.body.build_id}`)).body.status).toBe('ready');
      const server = await again.get(`/v3/servers/${started.body.instance_id}`);
      expect(server.body).toMatchObject({ status: 'stopped', network_ports: [] });
    } finally {
      await second.stop();
    }
  });

  it('uses SPAWNPOINT_DEV_SERVER_KEY / SPAWNPOINT_DEV_CLIENT_KEY as the default project keys', async () => {
    const serverKey = 'pf_DevServerKeyForLocalTesting000001';
    const clientKey = 'pfclient_DevClientKeyForLocalTesting01';
    const p = await startStandalone({ dataDir, portRange: '18100-18199', env: { SPAWNPOINT_DEV_SERVER_KEY: serverKey, SPAWNPOINT_DEV_CLIENT_KEY: clientKey } });
    try {
      expect(p.serverKey).toBe(serverKey);
      expect((await client(p.baseUrl, serverKey).get('/v3/servers')).status).toBe(200);
      expect((await client(p.baseUrl, clientKey).get('/v3/servers')).status).toBe(200);
      // The project is the same one as before: its build is still there.
      expect((await client(p.baseUrl, serverKey).get('/v3/builds')).body.builds).toHaveLength(1);
    } finally {
      await p.stop();
    }
  });
});
