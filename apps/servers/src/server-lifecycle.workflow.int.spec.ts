// The server-lifecycle workflow as the servers service runs it (its host's WorkflowRunner on PostgreSQL,
// ServerIntents as the dispatcher), with the process runtime: real games crash and are started again,
// TTLs stop servers, also when the deadline passed while no runner ran, and a refill follows a claim.
// Repeated dispatches (the runner sends at least once) change nothing twice.
import { BuildsModule } from '@spawnpoint/builds';
import { CommandIntent, serverLifecycleWorkflow, serverStream } from '@spawnpoint/domain';
import { Platform, PLATFORM, WorkflowRunner } from '@spawnpoint/platform';
import { ProjectsModule } from '@spawnpoint/projects';
import { CreatedProject, ServerList, ServerView, SUBJECTS } from '@spawnpoint/proto';
import { gameProcesses, killGames } from '../../../test/support/game-processes';
import { eventually } from '../../../test/support/http';
import { ServiceBed, startServiceBed, uploadSampleBuild } from '../../../test/support/service-bed';
import { ServerIntents } from './server-intents';
import { ServersHost } from './servers.host';
import { ServersModule } from './servers.module';


describe('server-lifecycle workflow in the servers service (PostgreSQL, process runtime)', () => {
  jest.setTimeout(90_000);
  let bed: ServiceBed;
  let platform: Platform;
  let pro: string;

  beforeAll(async () => {
    bed = await startServiceBed('srvwf', [ProjectsModule, BuildsModule, ServersModule], { SPAWNPOINT_PORT_RANGE: '27400-27599' });
    platform = bed.app.get<Platform>(PLATFORM);
    const made = await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: 'lifecycle', plan: 'pro' });
    pro = made.project_id;
    await uploadSampleBuild(bed, pro);
  });
  afterAll(async () => {
    await bed?.close();
    if (bed) killGames(bed.config.dataDir);
  });

  const host = () => bed.app.get(ServersHost);
  const dispatch = (intent: CommandIntent) => bed.app.get(ServerIntents).dispatch(intent, { workflow: 'server-lifecycle', instance: 'test' });
  const get = (serverId: string) => bed.request<ServerView>(SUBJECTS.servers.get, { projectId: pro, serverId });
  const start = (body: object) => bed.request<ServerView>(SUBJECTS.servers.start, { projectId: pro, plan: 'pro', body: { name: 'match', region: 'us-east', ...body } });
  const until = (serverId: string, status: string, ms = 20_000) => eventually(() => get(serverId), (s) => s.status === status, ms, `server ${serverId} ${status}`);
  const gamesOf = (serverId: string) => gameProcesses(bed.config.dataDir).filter((g) => g.instanceId === serverId);
  const eventsOf = async (serverId: string) => (await platform.store.readStream(serverStream(serverId))).events;

  it('TTL: a deadline that passed while no runner ran stops the server on the next runner\'s first poll', async () => {
    const s = await start({ name: 'short', ttl: 2 });
    await until(s.instance_id, 'running');
    await host().workflowRunner!.stop();
    await new Promise((r) => setTimeout(r, 3000));
    expect((await get(s.instance_id)).status).toBe('running'); // nobody ran the timer
    const next = new WorkflowRunner(platform.store, platform.db, [serverLifecycleWorkflow], bed.app.get(ServerIntents).dispatch, { now: platform.clock });
    host().workflowRunner = next; // the host stops it on close
    await next.start();
    await until(s.instance_id, 'stopped', 10_000);
    const stops = (await eventsOf(s.instance_id)).filter((e) => e.type === 'ServerStopped');
    expect(stops.map((e) => (e.data as { reason: string }).reason)).toEqual(['TTL_EXPIRED']);
    await eventually(async () => gamesOf(s.instance_id), (g) => g.length === 0, 5_000, 'game ended');
  });

  it('TTL: a stop intent dispatched twice stops the server once', async () => {
    const s = await start({ name: 'twice' });
    await until(s.instance_id, 'running');
    const intent: CommandIntent = {
      kind: 'command', target: { aggregate: 'server', id: s.instance_id, projectId: pro },
      command: { type: 'StopServer', reason: 'TTL_EXPIRED', now: platform.clock().toISOString() }, key: `server-ttl:${s.instance_id}:test`,
    };
    await dispatch(intent);
    await dispatch(intent);
    await until(s.instance_id, 'stopped');
    expect((await eventsOf(s.instance_id)).filter((e) => e.type === 'ServerStopped')).toHaveLength(1);
  });

  it('auto-restart: every crash is started again by the workflow, ten at most, then the server stops', async () => {
    const s = await start({ name: 'crashy', auto_restart: true, startup_args: '--exit-after-ms 150' });
    await until(s.instance_id, 'stopped', 60_000);
    const events = await eventsOf(s.instance_id);
    const crashes = events.filter((e) => e.type === 'ServerCrashed').map((e) => (e.data as { attempt: number }).attempt);
    expect(crashes).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Every restart bound its ports again (a game that never ran cannot crash), and the last crash stopped it.
    expect(events.filter((e) => e.type === 'ServerRunning')).toHaveLength(11);
    expect(events.at(-1)).toMatchObject({ type: 'ServerStopped', data: { reason: 'PROCESS_EXITED' } });
    expect(gamesOf(s.instance_id)).toHaveLength(0);
  });

  it('auto-restart: a restart intent dispatched again while its game runs starts no second game', async () => {
    const s = await start({ name: 'once', auto_restart: true, startup_args: '--exit-after-ms 2500' });
    await until(s.instance_id, 'running');
    await eventually(() => eventsOf(s.instance_id), (e) => e.some((x) => x.type === 'ServerCrashed'), 10_000, 'crashed once');
    await until(s.instance_id, 'running'); // restarted by the workflow
    const intent: CommandIntent = {
      kind: 'command', target: { request: 'RestartCrashedServer', projectId: pro },
      command: { type: 'RestartCrashedServer', projectId: pro, serverId: s.instance_id, attempt: 1, now: platform.clock().toISOString() }, key: `server-crash-restart:${s.instance_id}:0:1`,
    };
    await dispatch(intent);
    await dispatch(intent);
    expect(gamesOf(s.instance_id)).toHaveLength(1);
    await bed.request(SUBJECTS.servers.stop, { projectId: pro, serverId: s.instance_id });
  });

  it('pool refill: a claimed pool server is replaced', async () => {
    await bed.request(SUBJECTS.projects.updateSettings, {
      projectId: pro, patch: { pool_config: { enabled: true, regions: { 'eu-west': { min_ready: 1, max: 2 } }, build_name: 'default' } },
    });
    const ready = async () => (await bed.request<ServerList>(SUBJECTS.servers.list, { projectId: pro, region: 'eu-west', status: 'running', include_pool: true })).servers
      .filter((x) => x.is_pool_server && !x.pool_claimed_at);
    const [first] = await eventually(ready, (l) => l.length === 1, 30_000, 'pool filled');
    const claimed = await start({ name: 'ranked', region: 'eu-west' });
    expect(claimed.instance_id).toBe(first.instance_id);
    const [next] = await eventually(ready, (l) => l.length === 1, 30_000, 'pool refilled');
    expect(next.instance_id).not.toBe(first.instance_id);
    // the pool's unclaimed stock is left out of a list unless include_pool asks for it; the claimed server is the project's
    const listed = (await bed.request<ServerList>(SUBJECTS.servers.list, { projectId: pro, region: 'eu-west', status: 'running' })).servers.map((x) => x.instance_id);
    expect(listed).toContain(first.instance_id);
    expect(listed).not.toContain(next.instance_id);
    await bed.request(SUBJECTS.projects.updateSettings, { projectId: pro, patch: { pool_config: null } });
  });

  it('a start sent again with its command id after it claimed a pool server answers that server, not a second claim', async () => {
    await bed.request(SUBJECTS.projects.updateSettings, {
      projectId: pro, patch: { pool_config: { enabled: true, regions: { 'ap-south': { min_ready: 2, max: 3 } }, build_name: 'default' } },
    });
    const pool = async () => (await bed.request<ServerList>(SUBJECTS.servers.list, { projectId: pro, region: 'ap-south', status: 'running', include_pool: true })).servers.filter((x) => x.is_pool_server);
    await eventually(pool, (l) => l.filter((x) => !x.pool_claimed_at).length === 2, 30_000, 'pool filled');
    const commandId = 'launch:lobby-1:1';
    const keyed = (name: string) => bed.request<ServerView>(SUBJECTS.servers.start, { projectId: pro, plan: 'pro', body: { name, region: 'ap-south' } }, { commandId });
    const claimed = await keyed('first');
    expect(claimed.pool_claimed_at).not.toBeNull();
    // another payload under the same id (it misses the in-memory answer of the first, as another replica or
    // this one after a restart would): the start key in the store answers the claimed server
    const again = await keyed('second');
    expect(again.instance_id).toBe(claimed.instance_id);
    expect(again.name).toBe('first');
    expect((await pool()).filter((x) => x.pool_claimed_at).map((x) => x.instance_id)).toEqual([claimed.instance_id]);
    await bed.request(SUBJECTS.projects.updateSettings, { projectId: pro, patch: { pool_config: null } });
  });

  it('the same start arriving twice at once (as at two replicas) claims one pool server, starts one cold, and both arrivals answer it', async () => {
    await bed.request(SUBJECTS.projects.updateSettings, {
      projectId: pro, patch: { pool_config: { enabled: true, regions: { 'ap-north': { min_ready: 3, max: 3 } }, build_name: 'default' } },
    });
    const pool = async () => (await bed.request<ServerList>(SUBJECTS.servers.list, { projectId: pro, region: 'ap-north', status: 'running', include_pool: true })).servers.filter((x) => x.is_pool_server);
    await eventually(pool, (l) => l.filter((x) => !x.pool_claimed_at).length === 3, 30_000, 'pool filled');
    // two payloads under one command id: the in-memory join of RecentCommands does not see them as one
    const twice = (commandId: string, region: string) => Promise.all(['a', 'b'].map((name) =>
      bed.request<ServerView>(SUBJECTS.servers.start, { projectId: pro, plan: 'pro', body: { name, region } }, { commandId })));
    const claims = await twice('race:claim:1', 'ap-north');
    expect(claims[1].instance_id).toBe(claims[0].instance_id);
    expect(claims[0].pool_claimed_at).not.toBeNull();
    await eventually(pool, (l) => l.some((x) => x.pool_claimed_at), 10_000, 'claim in the read model');
    expect((await pool()).filter((x) => x.pool_claimed_at).map((x) => x.instance_id)).toEqual([claims[0].instance_id]);
    const colds = await twice('race:cold:1', 'south-africa');
    expect(colds[1].instance_id).toBe(colds[0].instance_id);
    const listed = async () => (await bed.request<ServerList>(SUBJECTS.servers.list, { projectId: pro, region: 'south-africa' })).servers.map((x) => x.instance_id);
    await eventually(listed, (l) => l.length > 0, 10_000, 'cold start in the read model');
    expect(await listed()).toEqual([colds[0].instance_id]);
    await bed.request(SUBJECTS.projects.updateSettings, { projectId: pro, patch: { pool_config: null } });
  });

  it('a start that failed leaves its key to a retry, which starts afresh', async () => {
    const commandId = 'retry:after:failure';
    const send = (version_tag: string) => bed.request<ServerView>(SUBJECTS.servers.start, { projectId: pro, plan: 'pro', body: { name: 'retried', region: 'us-west', version_tag } }, { commandId })
      .then((v) => v, (err: { body?: { status?: number } }) => err);
    const failed = await send('no-such-tag') as { body?: { status?: number } };
    expect(failed.body?.status).toBe(404);
    const started = await send('default') as ServerView;
    expect(started.instance_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.name).toBe('retried');
  });
});
