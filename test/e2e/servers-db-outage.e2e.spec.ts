// A database outage while a game starts (issue 36, item 4; ADR-0021): the "ports bound" report the store
// cannot take is retried until it is applied, so the server becomes running after the database returns
// (before: STARTUP_FAILURE_TIMEOUT after 5 minutes); the game's log lines written during the outage are kept
// and written when it returns. A private PostgreSQL the test stops for 10 s.
import { killGames } from '../support/game-processes';
import { client, eventually } from '../support/http';
import { OwnPostgres, startOwnPostgres } from '../support/own-services';
import { Platform, startDistributed } from '../support/processes';
import { tcpEcho } from '../support/game-client';
import { uploadSample } from './server-lifecycle';

jest.setTimeout(180_000);

describe('distributed: PostgreSQL stopped while a game starts', () => {
  let pg: OwnPostgres;
  let p: Platform;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    pg = await startOwnPostgres();
    p = await startDistributed('27400-27449', { SPAWNPOINT_STARTUP_TIMEOUT_MS: '60000' }, { databaseUrl: pg.url });
    api = client(p.baseUrl, p.serverKey);
    await uploadSample(api);
  });
  afterAll(async () => {
    if (p) killGames(p.dataDir);
    await p?.stop();
    await pg?.remove();
  });

  it('marks the game running once the database returns, and keeps its log lines of the outage', async () => {
    const started = await api.post('/v3/servers/start', { name: 'slow binder', region: 'us-east', startup_args: '--bind-after-ms 6000' });
    expect(started.status).toBe(201);
    const id = started.body.instance_id as string;
    await new Promise((r) => setTimeout(r, 2000));
    await pg.stop('fast');
    // The game binds ~4 s into the outage; its "still starting" lines of those seconds go nowhere yet.
    await new Promise((r) => setTimeout(r, 10_000));
    await pg.start();
    const s = await eventually(() => api.get(`/v3/servers/${id}`), (r) => r.status === 200 && (r.body.status === 'running' || r.body.status === 'stopped'), 60_000, 'server running after the outage');
    expect(s.body.status).toBe('running');
    const tcp = s.body.network_ports.find((x: { protocol: string }) => x.protocol === 'tcp');
    expect(await tcpEcho(tcp.host, tcp.external_port, 'back')).toBe('echo: back');
    expect(p.output()).toMatch(/handling ports_bound of .* failed; retrying/);
    // Every "still starting" line (0 to 5000 ms), those of the outage included, is in its logs.
    const logs = await eventually(() => api.get(`/v3/servers/${id}/logs?start_time=-1h`), (r) => r.status === 200 && JSON.stringify(r.body).includes('listening'), 20_000, 'logs');
    const text = JSON.stringify(logs.body);
    for (const ms of [0, 1000, 2000, 3000, 4000, 5000]) expect(text).toContain(`still starting (${ms} ms)`);
    expect((await api.delete(`/v3/servers/${id}`)).status).toBe(200);
  });
});
