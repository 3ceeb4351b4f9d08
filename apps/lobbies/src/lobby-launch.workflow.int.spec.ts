// The lobby-launch workflow as the lobbies service runs it, with the real servers service (process runtime,
// the sample game): a launch whose process died before or after it asked the servers service is completed
// at the launch check with the same key (so the same server), a direct start is never launched twice, and a
// refused launch hands the lobby back to waiting. The runner that fires the check runs on a clock 20 s
// ahead, so the check (15 s after GameStarting) is due at once.
import { BuildsModule } from '@spawnpoint/builds';
import { LobbyView, lobbyLaunchKey, lobbyLaunchWorkflow, lobbyServerWorkflow, lobbyStream } from '@spawnpoint/domain';
import { COMMAND_ID_HEADER } from '@spawnpoint/messaging';
import { idFromCommand, Platform, PLATFORM, WorkflowRunner } from '@spawnpoint/platform';
import { ProjectsModule } from '@spawnpoint/projects';
import { readModelsPool } from '@spawnpoint/read-models';
import { ServersModule } from '@spawnpoint/servers';
import { CreatedProject, ServerList, ServerView, SUBJECTS } from '@spawnpoint/proto';
import { killGames } from '../../../test/support/game-processes';
import { eventually } from '../../../test/support/http';
import { ServiceBed, startServiceBed, uploadSampleBuild } from '../../../test/support/service-bed';
import { LobbiesHost } from './lobbies.host';
import { LobbiesModule } from './lobbies.module';
import { LobbyIntents } from './lobby-intents';
import { LobbyAggregate } from './lobby-aggregate';

const L = SUBJECTS.lobbies;

describe('lobby-launch workflow in the lobbies service (PostgreSQL, real servers service)', () => {
  jest.setTimeout(90_000);
  let bed: ServiceBed;
  let platform: Platform;
  let projectId: string;

  beforeAll(async () => {
    bed = await startServiceBed('lobla', [ProjectsModule, BuildsModule, ServersModule, LobbiesModule], { SPAWNPOINT_PORT_RANGE: '27600-27799' });
    platform = bed.app.get<Platform>(PLATFORM);
    projectId = (await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: 'lobby-launch', plan: 'pro' })).project_id;
    await uploadSampleBuild(bed, projectId);
    await bed.request(SUBJECTS.projects.updateSettings, { projectId, patch: { lobby_configs: [{ name: 'broken', serverSettings: { version_tag: 'no-such-build' } }] } });
    // From here the launch check is due at once: the host's runner is replaced by one 20 s ahead.
    const host = bed.app.get(LobbiesHost);
    await host.workflowRunner!.stop();
    const ahead = () => new Date(platform.clock().getTime() + 20_000);
    host.workflowRunner = new WorkflowRunner(platform.store, platform.db, [lobbyServerWorkflow, lobbyLaunchWorkflow], bed.app.get(LobbyIntents).dispatch, { now: ahead, pollMs: 200 });
    await host.workflowRunner.start();
  });
  afterAll(async () => {
    await bed?.close();
    if (bed) killGames(bed.config.dataDir);
  });

  const now = () => platform.clock().toISOString();
  const mine = (playerId: string, config = 'default') => bed.request<LobbyView>(L.getMine, { projectId, config, playerId });
  // Launching ones too: a server of a launch counts from its start, not from when its game runs.
  const serversOf = async (lobbyId: string) => (await bed.request<ServerList>(SUBJECTS.servers.list, { projectId, match_id: lobbyId, include_launching: true })).servers;
  const assignments = async (lobbyId: string) => (await platform.store.readStream(lobbyStream(lobbyId))).events.filter((e) => e.type === 'LobbyServerAssigned');
  const outbox = async () => (await readModelsPool(platform.db).query(`SELECT intent_key, failed_at FROM workflow_intents WHERE workflow = 'lobby-launch'`)).rows;

  /** A lobby of `host` marked starting as a start marks it, by a process that then died: no launch followed. */
  async function orphanedStart(host: string, config = 'default'): Promise<string> {
    const { id } = await bed.request<LobbyView>(L.create, { projectId, config, playerId: host, body: {} });
    await bed.app.get(LobbyAggregate).handle(id, { type: 'StartGame', playerId: host, now: now() }, { projectId });
    return id;
  }

  it('a launch lost before it reached the servers service is sent at the check; the lobby gets its server and plays', async () => {
    const lobbyId = await orphanedStart('lost-host');
    const lobby = await eventually(() => mine('lost-host'), (l) => l.status === 'in_game', 30_000, 'lobby in game');
    expect(lobby.server!.instance_id).toBe(idFromCommand('server', projectId, lobbyLaunchKey(lobbyId, 1)));
    expect(await serversOf(lobbyId)).toHaveLength(1);
  });

  it('a launch that reached the servers service before its process died is completed with the same server', async () => {
    const { id: lobbyId } = await bed.request<LobbyView>(L.create, { projectId, config: 'default', playerId: 'half-host', body: {} });
    // The dead process's request: started with the launch's key, never assigned.
    const started = await bed.request<ServerView>(SUBJECTS.servers.start, {
      projectId, plan: 'pro', body: { name: `lobby-${lobbyId}`, region: 'us-east', match_id: lobbyId, custom_data: { lobby_id: lobbyId } },
    }, { headers: { [COMMAND_ID_HEADER]: lobbyLaunchKey(lobbyId, 1) } });
    await bed.app.get(LobbyAggregate).handle(lobbyId, { type: 'StartGame', playerId: 'half-host', now: now() }, { projectId });
    const lobby = await eventually(() => mine('half-host'), (l) => l.server !== null, 20_000, 'server assigned');
    expect(lobby.server!.instance_id).toBe(started.instance_id);
    expect(await serversOf(lobbyId)).toHaveLength(1);
  });

  it('a direct start is launched once: the check finds its server and sends nothing', async () => {
    const { id: lobbyId } = await bed.request<LobbyView>(L.create, { projectId, config: 'default', playerId: 'direct-host', body: {} });
    const started = await bed.request<LobbyView>(L.start, { projectId, config: 'default', playerId: 'direct-host' });
    expect(started.status).toBe('starting');
    await eventually(() => mine('direct-host'), (l) => l.status === 'in_game', 30_000, 'lobby in game');
    await bed.app.get(LobbiesHost).workflowRunner!.idle();
    expect(await serversOf(lobbyId)).toHaveLength(1);
    expect(await assignments(lobbyId)).toHaveLength(1);
    expect(await outbox()).toEqual([]);
  });

  it('a launch the servers service refuses hands the lobby back to waiting, and the intent is resolved, not retried', async () => {
    const lobbyId = await orphanedStart('refused-host', 'broken');
    await eventually(() => mine('refused-host', 'broken'), (l) => l.status === 'waiting', 20_000, 'back to waiting');
    await bed.app.get(LobbiesHost).workflowRunner!.idle();
    expect(await serversOf(lobbyId)).toHaveLength(0);
    expect(await outbox()).toEqual([]);
  });

  it('a server of a launch that arrives after the lobby was deleted is recorded unneeded and stopped by the workflow (an intent, not fire-and-forget)', async () => {
    const lobbyId = await orphanedStart('gone-host');
    // The launch's request reached the servers service; the lobby was deleted before the answer came back.
    const started = await bed.request<ServerView>(SUBJECTS.servers.start, {
      projectId, plan: 'pro', body: { name: `lobby-${lobbyId}`, region: 'us-east', match_id: lobbyId, custom_data: { lobby_id: lobbyId } },
    }, { headers: { [COMMAND_ID_HEADER]: lobbyLaunchKey(lobbyId, 1) } });
    await bed.app.get(LobbyAggregate).handle(lobbyId, { type: 'DeleteLobby', reason: 'admin', now: now() }, { projectId });
    const ran = await bed.app.get(LobbyAggregate).handle(lobbyId, { type: 'ServerAssigned', server: started as never, launch: 1, now: now() }, { projectId });
    expect(ran.events.map((e) => e.type)).toEqual(['LobbyServerUnneeded']);
    await eventually(() => bed.request<ServerView>(SUBJECTS.servers.get, { projectId, serverId: started.instance_id }), (v) => v.status === 'stopped', 20_000, 'unneeded server stopped');
    await eventually(outbox, (rows) => !rows.some((r) => String(r.intent_key).includes(':unneeded:')), 10_000, 'the stop intent done');
  });
});
