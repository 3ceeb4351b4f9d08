// The lobby-server workflow as the lobbies service runs it (its host's WorkflowRunner, the PostgreSQL event
// store, LobbyIntents as the dispatcher): lobbies follow their game server from the server's events alone.
// The server's events are appended here as the servers service appends them (no game runs); lobbies are
// created over the bus and started and assigned through the lobbies write path, as a start does.
import { LobbyCommand, LobbyView, lobbyServerWorkflow, lobbyStream, ServerEvent, ServerLaunch, serverStream } from '@spawnpoint/domain';
import { Platform, PLATFORM, WorkflowRunner } from '@spawnpoint/platform';
import { ProjectsModule } from '@spawnpoint/projects';
import { CreatedProject, SUBJECTS } from '@spawnpoint/proto';
import { readModelsPool } from '@spawnpoint/read-models';
import { randomUUID } from 'node:crypto';
import { ServiceBed, startServiceBed } from '../../../test/support/service-bed';
import { LobbiesHost } from './lobbies.host';
import { LobbiesModule } from './lobbies.module';
import { LobbyIntents } from './lobby-intents';
import { LobbyAggregate } from './lobby-aggregate';

const L = SUBJECTS.lobbies;
const ports = [{ name: 'game', internal_port: 7777, external_port: 7001, protocol: 'udp' as const, host: '127.0.0.1', tls_enabled: false }];

describe('lobby-server workflow in the lobbies service (PostgreSQL, in-process bus)', () => {
  let bed: ServiceBed;
  let platform: Platform;
  let projectId: string;
  const extra: WorkflowRunner[] = [];
  beforeAll(async () => {
    bed = await startServiceBed('lobwf', [ProjectsModule, LobbiesModule]);
    platform = bed.app.get<Platform>(PLATFORM);
    projectId = (await bed.request<CreatedProject>(SUBJECTS.projects.create, { name: 'lobby-server', plan: 'free' })).project_id;
  });
  afterAll(async () => {
    for (const r of extra) await r.stop();
    await bed?.close();
  });

  const runner = () => bed.app.get(LobbiesHost).workflowRunner!;
  const now = () => platform.clock().toISOString();
  const write = (lobbyId: string, command: LobbyCommand) => bed.app.get(LobbyAggregate).handle(lobbyId, command, { projectId });
  const mine = (playerId: string) => bed.request<LobbyView>(L.getMine, { projectId, config: 'default', playerId });

  /** A lobby of `host`, starting, with `serverId` assigned as a launch assigns it (the view servers.start answers). */
  async function assignedLobby(host: string, serverId: string): Promise<string> {
    const { id } = await bed.request<LobbyView>(L.create, { projectId, config: 'default', playerId: host, body: {} });
    await write(id, { type: 'StartGame', playerId: host, now: now() });
    await write(id, { type: 'ServerAssigned', server: { instance_id: serverId, status: 'launching', region: 'eu-west', network_ports: [] }, now: now() });
    return id;
  }

  async function server(serverId: string, ...events: ('started' | 'running' | 'stopped')[]): Promise<void> {
    const launch: ServerLaunch = {
      serverId, projectId, name: `lobby-${serverId}`, region: 'eu-west', computeSize: 'small', versionTag: 'game', version: 1, buildId: null,
      networkPorts: ports, startupArgs: null, serviceType: 'match_based', autoRestart: false, customData: null, ttl: 3600, matchId: serverId,
      environmentVariables: {}, isPoolServer: false,
    };
    const made: ServerEvent[] = events.map((e) => e === 'started' ? { type: 'ServerStarted', data: { ...launch, at: now() } }
      : e === 'running' ? { type: 'ServerRunning', data: { serverId, at: now() } }
        : { type: 'ServerStopped', data: { serverId, reason: 'TTL_EXPIRED', exitCode: null, at: now() } });
    await platform.store.appendToStream(serverStream(serverId), made, 'any');
  }

  const outbox = async () => (await readModelsPool(platform.db).query(`SELECT intent_key, failed_at FROM workflow_intents WHERE workflow = 'lobby-server'`)).rows;
  const byKey = async (lobbyId: string, key: string) => (await platform.store.readStream(lobbyStream(lobbyId))).events.filter((e) => e.metadata.commandId === key);

  it('ServerRunning moves the assigned lobby to in_game with the server\'s ports, keeping the assigned view', async () => {
    const serverId = randomUUID();
    await server(serverId, 'started');
    await assignedLobby('run-host', serverId);
    await server(serverId, 'running');
    await runner().idle();
    expect(await mine('run-host')).toMatchObject({
      status: 'in_game', server: { instance_id: serverId, status: 'running', region: 'eu-west', network_ports: ports, started_at: expect.any(String) },
    });
  });

  it('a server stop sends EVERY lobby assigned to it back to waiting', async () => {
    const serverId = randomUUID();
    await server(serverId, 'started');
    await assignedLobby('two-a', serverId);
    await assignedLobby('two-b', serverId);
    await server(serverId, 'running');
    await runner().idle();
    expect((await mine('two-a')).status).toBe('in_game');
    expect((await mine('two-b')).status).toBe('in_game');
    await server(serverId, 'stopped');
    await runner().idle();
    expect(await mine('two-a')).toMatchObject({ status: 'waiting', server: null });
    expect(await mine('two-b')).toMatchObject({ status: 'waiting', server: null });
  });

  it('a lobby assigned after its server already ran catches up at once (no asking the servers service)', async () => {
    const serverId = randomUUID();
    await server(serverId, 'started', 'running');
    await runner().idle();
    await assignedLobby('late-host', serverId);
    await runner().idle();
    expect(await mine('late-host')).toMatchObject({ status: 'in_game', server: { instance_id: serverId, network_ports: ports } });
  });

  it('a runner restart that dispatches an intent again (a crash before its delete) does not apply it twice', async () => {
    const serverId = randomUUID();
    await server(serverId, 'started');
    const lobbyId = await assignedLobby('again-host', serverId);
    await server(serverId, 'running');
    await runner().idle();
    const key = `lobby-server:${serverId}:${lobbyId}:running:1`;
    expect(await byKey(lobbyId, key)).toHaveLength(1);
    // The host ends the match; then the runner "crashes" with the running intent still in its outbox.
    await write(lobbyId, { type: 'EndMatch', playerId: 'again-host', now: now() });
    await runner().stop();
    const intent = lobbyServerWorkflow.react(
      { serverId, projectId, status: 'running', networkPorts: ports, startedAt: now(), runs: 1, lobbies: [lobbyId] },
      { type: 'ServerRunning', data: { serverId, at: now() } },
    )[0];
    expect(intent.key).toBe(key);
    await readModelsPool(platform.db).query(
      `INSERT INTO workflow_intents (workflow, key, intent_key, intent) VALUES ('lobby-server', $1, $2, $3::jsonb)`, [serverId, key, JSON.stringify(intent)]);

    const next = new WorkflowRunner(platform.store, platform.db, [lobbyServerWorkflow], bed.app.get(LobbyIntents).dispatch, { now: platform.clock });
    extra.push(next);
    await next.start();
    await next.idle();
    expect(await outbox()).toEqual([]); // dispatched and resolved, not failed
    expect(await byKey(lobbyId, key)).toHaveLength(1);
    expect(await mine('again-host')).toMatchObject({ status: 'waiting', server: null });
  });
});
