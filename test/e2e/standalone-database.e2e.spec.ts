// Issue 36 item 8: standalone watches its embedded PostgreSQL. kill -9 of the postmaster: the platform starts
// it again and serves (what was written before is there); a database that cannot be started again (its data
// directory gone) makes /livez answer 503, so a supervisor restarts the platform.
import { readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { client, eventually } from '../support/http';
import { Platform, startStandalone } from '../support/processes';

const HEALTH_PORT = 30390;
const as = (playerId: string) => ({ 'x-player-id': playerId });
const livez = () => fetch(`http://127.0.0.1:${HEALTH_PORT}/livez`).then((r) => r.status, () => 0);
const postmasterPid = (p: Platform) => Number(readFileSync(path.join(p.dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

describe('standalone: its embedded PostgreSQL dies', () => {
  jest.setTimeout(180_000);
  let p: Platform;
  afterAll(async () => {
    await p?.stop();
  });

  it('is restarted and serves again (writes made before are there); when it cannot be, /livez answers 503', async () => {
    p = await startStandalone({ portRange: '30300-30389', env: { HEALTH_PORT: String(HEALTH_PORT), SPAWNPOINT_PG_RESTARTS: '2' } });
    const api = client(p.baseUrl, p.clientKey);
    const created = await api.post('/v3/lobbies/default', {}, as('before-kill'));
    expect(created.status).toBe(201);
    expect(await livez()).toBe(200);

    const first = postmasterPid(p);
    process.kill(first, 'SIGKILL');
    const mine = await eventually(() => api.get('/v3/lobbies/default/me', as('before-kill')), (r) => r.status === 200, 60_000, 'serves again after the postmaster was killed');
    expect(mine.body.id).toBe(created.body.id);
    expect((await api.post('/v3/lobbies/default', {}, as('after-kill'))).status).toBe(201);
    expect(postmasterPid(p)).not.toBe(first);
    expect(await livez()).toBe(200);

    // Its data directory gone: the restarts fail, and liveness says so.
    const pid = postmasterPid(p);
    renameSync(path.join(p.dataDir, 'postgres', 'data'), path.join(p.dataDir, 'postgres', 'data-gone'));
    process.kill(pid, 'SIGKILL');
    await eventually(livez, (status) => status === 503, 60_000, '/livez 503 once the database cannot be restarted');
    renameSync(path.join(p.dataDir, 'postgres', 'data-gone'), path.join(p.dataDir, 'postgres', 'data')); // for a clean stop
  });
});
