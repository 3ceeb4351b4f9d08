// Crash recovery, both modes (issue 11): kill -9 of the process that runs the games during 30 starts, then
// a restart that reconciles; SIGTERM with lobby event streams open exits 0 and leaves no game behind.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, eventually } from '../support/http';
import { gameProcesses, killGames } from '../support/game-processes';
import { Platform, startDistributed, startStandalone } from '../support/processes';
import { lobbyEvents } from '../support/sse';
import { checkAfterRestart, expectNoStackTraces, nextStartWorks, startsUnderFire } from './crash-trials';
import { uploadSample } from './server-lifecycle';
import { everyServer } from '../support/server-list';

jest.setTimeout(240_000);
const STARTS = 30;

describe('standalone: kill -9 during 30 starts, then a restart on the same data dir', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-crash-'));
  const env = { SPAWNPOINT_STARTUP_TIMEOUT_MS: '20000' };
  let second: Platform | null = null;
  afterAll(async () => {
    await second?.stop();
    killGames(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses and doubles no acknowledged start, adopts the running games, leaves no orphan', async () => {
    const first = await startStandalone({ dataDir, portRange: '26000-26199', env });
    const api = client(first.baseUrl, first.serverKey);
    await uploadSample(api);
    const fired = await startsUnderFire(api, STARTS, 4, 12, async () => {
      expect(await first.kill('standalone', 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    });
    expect(fired.acked.length).toBeGreaterThanOrEqual(12);
    // The games outlived the platform (the spawner holds their pipes): they are there to adopt.
    expect(gameProcesses(dataDir).length).toBeGreaterThanOrEqual(fired.acked.length);

    // Same data dir: the embedded PostgreSQL left running by the kill is found and stopped, with a message.
    second = await startStandalone({ dataDir, portRange: '26000-26199', env });
    expect(second.output()).toMatch(/embedded PostgreSQL .* is still running from an earlier start .* stopping it/);
    const again = client(second.baseUrl, second.serverKey);
    const figures = await checkAfterRestart(again, dataDir, fired);
    console.log(`standalone kill -9 trial: ${JSON.stringify({ starts: STARTS, ...figures, failed: fired.failed })}`);
    await nextStartWorks(again);

    // A second crash, with adopted games: they are adopted again (their first spawner still holds their pipes).
    await second.kill('standalone', 'SIGKILL');
    second = await startStandalone({ dataDir, portRange: '26000-26199', env });
    await checkAfterRestart(client(second.baseUrl, second.serverKey), dataDir, { acked: fired.acked, failed: fired.failed });
  });
});

describe('standalone: SIGTERM with lobby event streams open', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-sigterm-'));
  let p: Platform;
  afterAll(async () => {
    await p?.stop();
    killGames(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 without a stack trace, stops its games, and restarts clean', async () => {
    p = await startStandalone({ dataDir, portRange: '26200-26299' });
    const api = client(p.baseUrl, p.serverKey);
    await uploadSample(api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/v3/servers/start', { name: `term-${i}`, region: 'eu-uk' })).body.instance_id);
    for (const id of ids) await eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 20_000, `${id} running`);
    const streams = [];
    for (let i = 0; i < 5; i++) {
      const player = `p${i}`;
      expect((await api.post('/v3/lobbies/default', { name: `l${i}` }, { 'x-player-id': player })).status).toBe(201);
      const s = lobbyEvents(p.baseUrl, p.serverKey, 'default', player);
      await s.next('connected');
      streams.push(s);
    }
    // Load while it stops: starts and lobby writes in flight.
    const mark = p.output().length;
    const load = Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => api.post('/v3/servers/start', { name: `late-${i}`, region: 'eu-uk' })),
      ...Array.from({ length: 40 }, (_, i) => api.patch('/v3/lobbies/default/me', { state: { n: i } }, { 'x-player-id': `p${i % 5}` })),
      ...Array.from({ length: 20 }, () => api.get('/v3/servers?limit=100')),
    ]);
    const exit = await p.kill('standalone', 'SIGTERM');
    await load;
    for (const s of streams) s.close();
    expect(exit).toEqual({ code: 0, signal: null });
    expectNoStackTraces(p.output().slice(mark));
    expect(p.output().slice(mark)).toMatch(/spawnpoint standalone: stopped/);
    // Games are stopped with the platform, not left behind.
    expect(gameProcesses(dataDir)).toEqual([]);

    p = await startStandalone({ dataDir, portRange: '26200-26299' });
    const again = client(p.baseUrl, p.serverKey);
    expect(p.output()).not.toMatch(/still running from an earlier start/);
    // Every server, the ones started while it stopped included, was recorded stopped with its game.
    const all = await everyServer(again);
    expect(all.map((s: any) => s.instance_id)).toEqual(expect.arrayContaining(ids));
    expect(all.filter((s: any) => s.status !== 'stopped')).toEqual([]);
    expect(gameProcesses(dataDir)).toEqual([]);
    await nextStartWorks(again);
  });
});

describe('distributed: kill -9 of the servers service during 30 starts', () => {
  let p: Platform;
  afterAll(async () => {
    killGames(p.dataDir);
    await p?.stop();
  });

  it('loses and doubles no acknowledged start, adopts the running games, leaves no orphan', async () => {
    p = await startDistributed('26300-26499', { SPAWNPOINT_STARTUP_TIMEOUT_MS: '20000' });
    const api = client(p.baseUrl, p.serverKey);
    await uploadSample(api);
    const fired = await startsUnderFire(api, STARTS, 4, 12, async () => {
      expect(await p.kill('servers', 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    });
    expect(fired.acked.length).toBeGreaterThanOrEqual(12);
    await p.relaunch('servers');
    const figures = await checkAfterRestart(api, p.dataDir, fired);
    console.log(`distributed kill -9 trial: ${JSON.stringify({ starts: STARTS, ...figures, failed: fired.failed })}`);
    await nextStartWorks(api);

    // SIGTERM: every app exits 0 without EPIPE or a stack trace; the servers service stops its games.
    // Under load: starts in flight while the servers service stops.
    const mark = p.output().length;
    const load = Promise.allSettled(Array.from({ length: 10 }, (_, i) => api.post('/v3/servers/start', { name: `late-${i}`, region: 'eu-uk' })));
    for (const app of ['servers', 'lobbies', 'builds', 'projects', 'gateway']) expect(await p.kill(app, 'SIGTERM')).toEqual({ code: 0, signal: null });
    await load;
    expectNoStackTraces(p.output().slice(mark));
    expect(gameProcesses(p.dataDir)).toEqual([]);
  });
});
