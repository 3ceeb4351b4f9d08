// Issue 36 item 5: a lobby's server stop is a durable intent (the lobby-launch workflow's StopLobbyServer),
// never fire-and-forget. The servers service is killed, the host ends the match (and another lobby is deleted),
// the servers service comes back: both servers get stopped then. A normal match end logs no error.
import { client, eventually } from '../support/http';
import { jsonLinesSoFar } from '../support/logs';
import { Platform, startDistributed } from '../support/processes';
import { uploadSample } from './server-lifecycle';

const as = (playerId: string) => ({ 'x-player-id': playerId });

describe('a lobby server stop while the servers service is down (distributed)', () => {
  jest.setTimeout(180_000);
  let p: Platform;
  afterAll(async () => {
    await p?.stop();
  });

  it('reaches the server once the servers service is back; a normal match end logs no error', async () => {
    p = await startDistributed('30000-30099');
    const server = client(p.baseUrl, p.serverKey);
    const api = client(p.baseUrl, p.clientKey);
    await uploadSample(server);

    /** A lobby of `host` in game: its server's id. */
    const inGame = async (host: string): Promise<string> => {
      expect((await api.post('/v3/lobbies/default', {}, as(host))).status).toBe(201);
      expect((await api.post('/v3/lobbies/default/me/start', undefined, as(host))).status).toBe(200);
      const lobby = await eventually(() => api.get('/v3/lobbies/default/me', as(host)), (r) => r.body.status === 'in_game', 30_000, `${host} in_game`);
      const id: string = lobby.body.server.instance_id;
      await eventually(() => server.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 10_000, `${id} running`);
      return id;
    };

    // A normal match end first: the server stops, and nothing logs an error.
    const normal = await inGame('host-normal');
    expect((await api.post('/v3/lobbies/default/me/end-match', undefined, as('host-normal'))).status).toBe(200);
    await eventually(() => server.get(`/v3/servers/${normal}`), (r) => r.body.status === 'stopped', 20_000, 'normal match end stops the server');
    await new Promise((r) => setTimeout(r, 2_000)); // the workflow's and the lobby-server workflow's last steps
    const errors = ['lobbies', 'servers', 'matchmaking', 'gateway'].flatMap((app) =>
      jsonLinesSoFar(p.stdout!(app)).filter((l) => Number(l.level) >= 50).map((l) => `${app}: ${String(l.msg)}`));
    expect(errors).toEqual([]);

    const ended = await inGame('host-ended');
    const deleted = await inGame('host-deleted');
    await p.kill('servers', 'SIGKILL');
    expect((await api.post('/v3/lobbies/default/me/end-match', undefined, as('host-ended'))).status).toBe(200);
    expect((await api.delete('/v3/lobbies/default/me', as('host-deleted'))).status).toBe(200);
    await new Promise((r) => setTimeout(r, 3_000)); // the intents are tried (and fail: no responders) meanwhile
    await p.relaunch('servers');
    for (const id of [ended, deleted]) {
      await eventually(() => server.get(`/v3/servers/${id}`), (r) => r.body.status === 'stopped', 45_000, `${id} stopped after the servers service came back`)
        .catch((err: Error) => {
          throw new Error(`${err.message}\n${p.stdout!('lobbies').slice(-4000)}`);
        });
    }
  });
});
