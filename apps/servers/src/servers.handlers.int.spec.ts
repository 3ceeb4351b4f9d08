// Every servers use case through its handler, reached over the in-process bus as the gateway reaches it,
// on the PostgreSQL event store and read models, with the real projects and builds services and the
// process runtime: the sample game is uploaded as a ZIP, and real game processes start and bind real ports.
import { randomUUID } from 'node:crypto';
import { BuildsModule } from '@spawnpoint/builds';
import { RemoteError } from '@spawnpoint/messaging';
import { ProjectsModule } from '@spawnpoint/projects';
import { CreatedProject, LogPage, ServerList, ServerMetricsView, ServerView, SUBJECTS } from '@spawnpoint/proto';
import { tcpEcho } from '../../../test/support/game-client';
import { gameProcesses, killGames } from '../../../test/support/game-processes';
import { eventually } from '../../../test/support/http';
import { ServiceBed, startServiceBed, uploadSampleBuild } from '../../../test/support/service-bed';
import { ServersModule } from './servers.module';


describe('servers handlers (in-process bus, PostgreSQL, process runtime)', () => {
  jest.setTimeout(60_000);
  let bed: ServiceBed;
  let pro: string;

  beforeAll(async () => {
    bed = await startServiceBed('srvh', [ProjectsModule, BuildsModule, ServersModule], { SPAWNPOINT_PORT_RANGE: '27200-27399' });
    pro = await project('pro');
  });
  afterAll(async () => {
    await bed?.close();
    if (bed) killGames(bed.config.dataDir);
  });

  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: RemoteError) => e);
  const get = (projectId: string, serverId: string) => bed.request<ServerView>(SUBJECTS.servers.get, { projectId, serverId });
  const start = (projectId: string, body: object, commandId?: string, plan = 'pro') =>
    bed.request<ServerView>(SUBJECTS.servers.start, { projectId, plan, body: { name: 'match', region: 'us-east', ...body } }, { commandId });
  const running = (projectId: string, serverId: string) =>
    eventually(() => get(projectId, serverId), (s) => s.status === 'running', 20_000, `server ${serverId} running`);
  const gamesOf = (serverId: string) => gameProcesses(bed.config.dataDir).filter((g) => g.instanceId === serverId);

  /** A project of the plan with the sample game uploaded as its 'default' build (ready). */
  async function project(plan: 'free' | 'pro'): Promise<string> {
    const made = await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: `servers-${plan}`, plan });
    await uploadSampleBuild(bed, made.project_id);
    return made.project_id;
  }

  it('StartServer: a real game binds its ports; a start sent again with its command id answers the same server', async () => {
    const commandId = randomUUID();
    const started = await start(pro, { custom_data: { map: 'a' } }, commandId);
    expect(started).toMatchObject({ status: 'launching', name: 'match', region: 'us-east', custom_data: { map: 'a' }, is_pool_server: false, version: 1 });
    const live = await running(pro, started.instance_id);
    const tcp = live.network_ports.find((p) => p.protocol === 'tcp')!;
    expect(tcp.external_port).toBeGreaterThanOrEqual(27200);
    expect(tcp.external_port).toBeLessThanOrEqual(27399);
    expect(await tcpEcho(tcp.host, tcp.external_port, 'hello')).toBe('echo: hello');
    const again = await start(pro, { name: 'another' }, commandId);
    expect(again.instance_id).toBe(started.instance_id);
    expect(again.name).toBe('match');
    expect(gamesOf(started.instance_id)).toHaveLength(1);
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: started.instance_id });
  });

  it('StartServer: starts sent together with one command id (a retry while the first still runs) answer one server, its ports kept', async () => {
    const commandId = randomUUID();
    const outcomes = await Promise.allSettled(Array.from({ length: 3 }, () => start(pro, { custom_data: { map: 'b' } }, commandId)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const ids = new Set(outcomes.map((o) => (o as PromiseFulfilledResult<ServerView>).value.instance_id));
    expect(ids.size).toBe(1);
    const [serverId] = [...ids];
    const live = await running(pro, serverId);
    const tcp = live.network_ports.find((p) => p.protocol === 'tcp')!;
    expect(await tcpEcho(tcp.host, tcp.external_port, 'still mine')).toBe('echo: still mine');
    // its ports stay reserved to it: another server gets other ones
    const other = await start(pro, {});
    expect(other.network_ports.map((p) => p.external_port)).not.toContain(tcp.external_port);
    expect(gamesOf(serverId)).toHaveLength(1);
    for (const id of [serverId, other.instance_id]) await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: id });
  });

  it('StartServer: a capped plan admits one active server, however many starts arrive together', async () => {
    const free = await project('free');
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => start(free, { name: `s${i}` }, undefined, 'free')));
    const admitted = outcomes.filter((o): o is PromiseFulfilledResult<ServerView> => o.status === 'fulfilled');
    expect(admitted).toHaveLength(1);
    expect(admitted[0].value.ttl).toBe(3600); // the free plan's forced TTL
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as RemoteError).body).toMatchObject({ status: 403 });
    await bed.request(SUBJECTS.servers.stop, { projectId: free, serverId: admitted[0].value.instance_id });
  });

  it('GetServer: 404 for an unknown id, a malformed one, or another project\'s server', async () => {
    const s = await start(pro, {});
    expect((await get(pro, s.instance_id)).instance_id).toBe(s.instance_id);
    const other = await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: 'other', plan: 'pro' });
    for (const [projectId, serverId] of [[other.project_id, s.instance_id], [pro, randomUUID()], [pro, 'not-a-uuid']]) {
      expect(await refusal(get(projectId, serverId))).toMatchObject({ body: { status: 404 } });
    }
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id });
  });

  it('ListServers: running only unless launching is asked for, newest first, filtered, paged by offset with total and has_more', async () => {
    const matchId = randomUUID();
    const list = (q: object) => bed.request<ServerList>(SUBJECTS.servers.list, { projectId: pro, match_id: matchId, ...q });
    // the sample game with --no-bind binds nothing: its server stays launching (until the startup timeout)
    const launching = (await start(pro, { match_id: matchId, startup_args: '--no-bind' })).instance_id;
    const live = (await start(pro, { match_id: matchId })).instance_id;
    const gone = (await start(pro, { match_id: matchId })).instance_id;
    await running(pro, live);
    await running(pro, gone);
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: gone });
    expect(await list({})).toEqual({ total: 1, servers: [expect.objectContaining({ instance_id: live })], limit: 50, offset: 0, has_more: false });
    expect((await list({ include_launching: true })).servers.map((s) => s.instance_id)).toEqual([live, launching]);
    expect((await list({ status: 'stopped' })).servers.map((s) => s.instance_id)).toEqual([gone]);
    expect((await list({ status: 'launching' })).servers.map((s) => s.instance_id)).toEqual([launching]);
    const first = await list({ include_launching: true, limit: 1 });
    expect(first).toMatchObject({ total: 2, limit: 1, offset: 0, has_more: true, servers: [{ instance_id: live }] });
    const second = await list({ include_launching: true, limit: 1, offset: 1 });
    expect(second).toMatchObject({ total: 2, limit: 1, offset: 1, has_more: false, servers: [{ instance_id: launching }] });
    expect(await list({ include_launching: true, offset: 5 })).toMatchObject({ total: 2, servers: [], has_more: false });
    expect(await list({ include_launching: true, region: 'eu-west' })).toMatchObject({ total: 0, servers: [] });
    for (const id of [launching, live]) await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: id });
  });

  it('UpdateServer: custom_data replaced and shown at once by get; 409 once stopped', async () => {
    const s = await start(pro, { custom_data: { round: 1 } });
    const updated = await bed.request<ServerView>(SUBJECTS.servers.update, { projectId: pro, serverId: s.instance_id, customData: { round: 2 } });
    expect(updated.custom_data).toEqual({ round: 2 });
    expect((await get(pro, s.instance_id)).custom_data).toEqual({ round: 2 });
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id });
    const refused = await refusal(bed.request(SUBJECTS.servers.update, { projectId: pro, serverId: s.instance_id, customData: {} }));
    expect(refused).toMatchObject({ body: { status: 409 } });
  });

  it('StopServer: recorded with its reason, ports gone, the game process ended; an unknown reason is 422', async () => {
    const s = await running(pro, (await start(pro, {})).instance_id);
    const tcp = s.network_ports.find((p) => p.protocol === 'tcp')!;
    const bad = await refusal(bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id, reason: 'BORED' }));
    expect(bad).toMatchObject({ body: { status: 422 } });
    const stopped = await bed.request<ServerView>(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id, reason: 'PROCESS_EXITED' });
    expect(stopped).toMatchObject({ status: 'stopped', network_ports: [], stopped_at: expect.any(String) });
    await eventually(async () => gamesOf(s.instance_id), (games) => games.length === 0, 10_000, 'game process ended');
    await expect(tcpEcho(tcp.host, tcp.external_port, 'x', 500)).rejects.toThrow();
  });

  it('RestartServer: overlapping restarts run one after another; exactly one game runs at the end, on new ports', async () => {
    const s = await running(pro, (await start(pro, { name: 'before' })).instance_id);
    const oldPort = s.network_ports.find((p) => p.protocol === 'tcp')!.external_port;
    const restarts = await Promise.all([1, 2, 3].map((n) => bed.request<ServerView>(SUBJECTS.servers.restart, {
      projectId: pro, serverId: s.instance_id, body: { name: `after-${n}` },
    })));
    expect(restarts.every((r) => r.instance_id === s.instance_id)).toBe(true);
    const after = await running(pro, s.instance_id);
    expect(after.name).toMatch(/^after-[123]$/);
    const tcp = after.network_ports.find((p) => p.protocol === 'tcp')!;
    expect(tcp.external_port).not.toBe(oldPort);
    expect(await tcpEcho(tcp.host, tcp.external_port, 'again')).toBe('echo: again');
    expect(gamesOf(s.instance_id)).toHaveLength(1);
    const missing = await refusal(bed.request(SUBJECTS.servers.restart, { projectId: pro, serverId: randomUUID(), body: {} }));
    expect(missing).toMatchObject({ body: { status: 404 } });
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id });
  });

  it('UsesBuild: true while an active server runs the build, false once it stopped', async () => {
    const s = await start(pro, {});
    const { buildId } = await bed.request<{ buildId: string }>(SUBJECTS.builds.resolve, { projectId: pro, name: 'default', version: null });
    expect(await bed.request(SUBJECTS.servers.usesBuild, { projectId: pro, buildId })).toEqual({ inUse: true });
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id });
    expect(await bed.request(SUBJECTS.servers.usesBuild, { projectId: pro, buildId })).toEqual({ inUse: false });
  });

  it('logs, logHistogram, metrics: the game\'s own output and live figures; 404 for another project', async () => {
    const s = await running(pro, (await start(pro, {})).instance_id);
    const page = await eventually(() => bed.request<LogPage>(SUBJECTS.servers.logs, { projectId: pro, serverId: s.instance_id }), (p) => p.logs.length > 0, 10_000, 'log lines');
    expect(page.logs[0]).toMatchObject({ instance_id: s.instance_id, region: 'us-east', message: expect.any(String) });
    const histogram = await bed.request<{ buckets: { info: number; warn: number; error: number }[] }>(SUBJECTS.servers.logHistogram, { projectId: pro, serverId: s.instance_id });
    expect(histogram.buckets.reduce((n, b) => n + b.info + b.warn + b.error, 0)).toBeGreaterThanOrEqual(page.logs.length);
    const metrics = await bed.request<ServerMetricsView>(SUBJECTS.servers.metrics, { projectId: pro, serverId: s.instance_id });
    expect(metrics.memory_bytes).toBeGreaterThan(0);
    const other = await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: 'nosy', plan: 'pro' });
    expect(await refusal(bed.request(SUBJECTS.servers.logs, { projectId: other.project_id, serverId: s.instance_id }))).toMatchObject({ body: { status: 404 } });
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id });
    expect((await bed.request<ServerMetricsView>(SUBJECTS.servers.metrics, { projectId: pro, serverId: s.instance_id })).memory_bytes).toBeNull();
  });
});
