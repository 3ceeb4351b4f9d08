// kill -9 of the matchmaking service at the points of a match's formation where a crash hurts most
// (issue 13): right after the matcher recorded a proposal, after the first lobby was reserved, after the
// last reservation formed the match but before its dispatcher told the lobbies (the retry tells them), and
// after the match's server started but before the match recorded it. Distributed, two matchmaking replicas: the
// survivor takes over. Each time: both lobbies end in one game, on exactly one server of that match (no
// duplicate, no orphan), nothing stuck; then the dead replica starts again for the next trial.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gameProcesses } from '../support/game-processes';
import { client, eventually } from '../support/http';
import { Platform, startDistributed } from '../support/processes';
import { uploadSample } from './server-lifecycle';
import { everyServer } from '../support/server-list';

const as = (playerId: string) => ({ 'x-player-id': playerId });
const POINTS = ['matcher.after-propose', 'match.after-reservation', 'match.after-formed', 'match.after-server-start'];

describe('matchmaking: kill -9 mid-formation at each crash point (distributed, two matchmaking replicas)', () => {
  jest.setTimeout(300_000);
  let p: Platform;
  const failpoints = mkdtempSync(path.join(os.tmpdir(), 'sp-failpoints-'));

  beforeAll(async () => {
    p = await startDistributed('28800-28999', { SPAWNPOINT_FAILPOINTS_DIR: failpoints }, { extraServices: ['matchmaking'] });
    const server = client(p.baseUrl, p.serverKey);
    expect((await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'arena', matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } }] })).status).toBe(200);
    await uploadSample(server);
  });
  afterAll(async () => {
    await p?.stop();
    rmSync(failpoints, { recursive: true, force: true });
  });

  it.each(POINTS)('%s: the match resumes on the survivor; one game, one server, nothing stuck', async (point) => {
    const api = client(p.baseUrl, p.clientKey);
    const server = client(p.baseUrl, p.serverKey);
    const players = [`${point}-a`, `${point}-b`].map((x) => x.replace(/\./g, '-'));
    for (const who of players) expect((await api.post('/v3/lobbies/arena', { region: 'eu-north' }, as(who))).status).toBe(201);
    const killLine = new RegExp(`failpoint ${point.replace(/\./g, '\\.')}: kill -9 \\(pid (\\d+)\\)`);
    writeFileSync(path.join(failpoints, point), '');
    for (const who of players) expect((await api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(who))).status).toBe(200);

    // the process that reached the point died there
    await eventually(async () => killLine.exec(p.output()), (m) => m !== null, 30_000, `${point} reached`);
    const killedAt = Date.now();

    const games = await Promise.all(players.map((who) => eventually(() => api.get('/v3/lobbies/arena/me', as(who)), (r) => r.body.status === 'in_game', 60_000, `${who} in_game`)))
      .catch(async (err: Error) => {
        // what each lobby and its server show, and what the services said (then the test fails)
        const now = await Promise.all(players.map((who) => api.get('/v3/lobbies/arena/me', as(who))));
        const ids = [...new Set(now.map((r) => r.body.server?.instance_id).filter(Boolean))];
        const srv = await Promise.all(ids.map((id) => server.get(`/v3/servers/${id}`)));
        const said = p.output().split('\n').filter((l) => /error|warn|fail|refus|matchmaking|!\]/i.test(l)).slice(-60).join('\n');
        throw new Error(`${err.message}\nlobbies: ${JSON.stringify(now.map((r) => [r.body.host, r.body.status]))}\nservers: ${JSON.stringify(srv.map((r) => [r.body.instance_id, r.body.status, r.body.match_id]))}\n${said}`);
      });
    const resolvedMs = Date.now() - killedAt;
    console.log(`${point}: kill -9 → every lobby of the match in_game in ${resolvedMs} ms`);
    const serverId = games[0].body.server.instance_id;
    expect(games[1].body.server.instance_id).toBe(serverId);
    const match = (await server.get(`/v3/servers/${serverId}`)).body;
    expect(match.custom_data.match.lobbies.sort()).toEqual(games.map((g) => g.body.id).sort());
    // exactly one server for the match: a start repeated after the crash is the same start
    const list: any[] = await everyServer(server);
    expect(list.filter((s) => s.match_id === match.match_id).map((s) => s.instance_id)).toEqual([serverId]);

    // the dead replica comes back (the next trial has two again); the game ends cleanly
    await p.relaunch('matchmaking');
    for (const who of players) expect((await api.post('/v3/lobbies/arena/me/end-match', undefined, as(who))).body.status).toBe('waiting');
    await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 30_000, 'match server stopped');
    // no game process of any server is left running but its own (no orphan from the crashed start)
    const runningList: any[] = (await server.get('/v3/servers?include_launching=true&include_pool=true&limit=100')).body.servers;
    expect(runningList.map((s) => s.instance_id)).toEqual([]);
    await eventually(async () => gameProcesses(p.dataDir), (ps) => ps.length === 0, 15_000, 'no game process left');
  });

  it('match.after-server-start, then the lobbies cancel while no matcher runs: the server started is stopped (no orphan), nothing stuck', async () => {
    const api = client(p.baseUrl, p.clientKey);
    const server = client(p.baseUrl, p.serverKey);
    const players = ['gone-a', 'gone-b'];
    const ids: string[] = [];
    for (const who of players) {
      const created = await api.post('/v3/lobbies/arena', { region: 'eu-north' }, as(who));
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const point = 'match.after-server-start';
    const killLine = /failpoint match\.after-server-start: kill -9 \(pid (\d+)\)/g;
    const killsBefore = [...p.output().matchAll(killLine)].length;
    writeFileSync(path.join(failpoints, point), '');
    for (const who of players) expect((await api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as(who))).status).toBe(200);
    await eventually(async () => [...p.output().matchAll(killLine)].length, (n) => n > killsBefore, 30_000, `${point} reached`);
    // the other replica too, before it takes the lead: the match's server runs, and no matcher knows it
    await p.killAll!('matchmaking', 'SIGKILL');
    // the server the match's start made (custom_data.match names the lobbies)
    const list: any[] = await everyServer(server);
    const started = list.filter((s) => s.custom_data?.match?.lobbies?.includes(ids[0]));
    expect(started).toHaveLength(1);
    expect(started[0].status).not.toBe('stopped');
    const matchId: string = started[0].match_id;
    // each lobby leaves the queue (matched still searches; a lobby the survivor got to first is in its game)
    const cancels = await Promise.all(players.map((who) => api.delete('/v3/lobbies/arena/me/matchmaking', as(who))));
    expect(cancels.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    await p.relaunch('matchmaking');
    await p.relaunch('matchmaking');
    // the match falls through (or, had its start been recorded first, ends as its lobbies leave): either way
    // its server stops and every lobby waits
    for (const who of players) {
      const r = await eventually(() => api.get('/v3/lobbies/arena/me', as(who)), (x) => x.body.status === 'waiting' || x.body.status === 'in_game', 30_000, `${who} settled`);
      if (r.body.status === 'in_game') expect((await api.post('/v3/lobbies/arena/me/end-match', undefined, as(who))).body.status).toBe('waiting');
    }
    await eventually(() => server.get(`/v3/servers?include_launching=true&match_id=${matchId}`), (r) => r.body.total === 0, 30_000, 'the match server stopped');
    await eventually(async () => gameProcesses(p.dataDir), (ps) => ps.length === 0, 15_000, 'no game process left');
  });
});
