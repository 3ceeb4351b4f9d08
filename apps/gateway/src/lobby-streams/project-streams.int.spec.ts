// The project-wide lobby streams over a real HTTP server, read by the client SDK's stream, fed through a real
// (in-process) bus: only the stream's project and configuration get through (updates and queue figures), a
// deleted lobby does not end a stream, pings come on time, and one stream too many for a project ends its oldest.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { Spawnpoint, type ProjectLobbyEventMap, type StreamEvent } from '@spawnpoint/client';
import { InProcessBus } from '@spawnpoint/messaging';
import { loadConfig } from '@spawnpoint/platform';
import { LobbyUpdate, QueueStatsBroadcast, SUBJECTS } from '@spawnpoint/proto';
import { MAX_PROJECT_STREAMS, ProjectLobbyStreams } from './project-streams';

const LOBBY = '11111111-1111-4111-8111-111111111111';

describe('ProjectLobbyStreams (operator fan-out)', () => {
  let bus: InProcessBus;
  let streams: ProjectLobbyStreams;
  let server: http.Server;
  let baseUrl: string;
  // The route's part after the guard: the key names the project here, the path the configuration.
  const open = (project: string, config: string) => new Spawnpoint({ baseUrl, apiKey: project, retry: { retries: 0 } }).lobbies.events(config, { reconnect: false });
  const update = (projectId: string, config: string, revision: number, over: Partial<LobbyUpdate> = {}) =>
    bus.broadcast(SUBJECTS.lobbies.updates, { projectId, config, lobbyId: LOBBY, revision, kind: 'updated', lobby: { id: LOBBY, revision }, removed: [], ...over } satisfies LobbyUpdate);

  beforeAll(async () => {
    bus = new InProcessBus();
    streams = new ProjectLobbyStreams(bus, { ...loadConfig({}, 'standalone'), lobbyPingMs: 300 });
    await streams.onModuleInit();
    server = http.createServer((req, res) => {
      const config = decodeURIComponent(req.url!.split('/')[3]);
      streams.open(res, String(req.headers['api-key']), config);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await streams.beforeApplicationShutdown();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await bus.close();
  });

  it('passes only its own project and configuration, keeps going after a delete, and pings', async () => {
    const mine = open('p1', 'default');
    const seen: StreamEvent<ProjectLobbyEventMap>[] = [];
    mine.on('event', (e) => seen.push(e));
    try {
      expect((await mine.next('connected')).data).toEqual({ config: 'default' });
      await update('p2', 'default', 1); // another project
      await update('p1', 'ranked', 2); // another configuration
      await update('p1', 'default', 3);
      const got = await mine.next('lobby_updated');
      expect(got).toMatchObject({ id: `${LOBBY}:3`, data: { id: LOBBY, revision: 3 } });

      await bus.broadcast(SUBJECTS.matchmaking.queueStats, { queues: [
        { projectId: 'p1', config: 'default', mode: 'duel', region: 'us-east', playersSearching: 2, lobbiesInQueue: 2, avgWaitSeconds: 4 },
        { projectId: 'p1', config: 'ranked', mode: 'duel', region: 'us-east', playersSearching: 9, lobbiesInQueue: 9, avgWaitSeconds: 9 },
        { projectId: 'p2', config: 'default', mode: 'duel', region: 'us-east', playersSearching: 7, lobbiesInQueue: 7, avgWaitSeconds: 7 },
      ] } satisfies QueueStatsBroadcast);
      expect((await mine.next('queue_stats')).data).toEqual({ queues: [{ mode: 'duel', region: 'us-east', playersSearching: 2, lobbiesInQueue: 2, avgWaitSeconds: 4 }] });

      await update('p1', 'default', 4, { kind: 'deleted', lobby: null, reason: 'admin' });
      expect((await mine.next('lobby_deleted')).data).toEqual({ id: LOBBY, reason: 'admin' });
      expect((await mine.next('ping')).id).toMatch(/^default:\d+$/);
      await update('p1', 'default', 5);
      expect((await mine.next('lobby_updated')).id).toBe(`${LOBBY}:5`);
      expect(seen.filter((e) => e.event === 'lobby_updated').map((e) => e.id)).toEqual([`${LOBBY}:3`, `${LOBBY}:5`]);
    } finally {
      mine.close();
    }
  });

  it(`keeps at most ${MAX_PROJECT_STREAMS} streams per project: one more ends the oldest, other projects untouched`, async () => {
    const other = open('p9', 'default');
    await other.next('connected');
    const first = open('p1', 'default');
    await first.next('connected');
    const rest = [];
    for (let i = 1; i < MAX_PROJECT_STREAMS; i++) {
      rest.push(open('p1', 'default'));
      await rest[rest.length - 1].next('connected');
    }
    try {
      expect(streams.size).toBe(MAX_PROJECT_STREAMS + 1);
      const extra = open('p1', 'default');
      rest.push(extra);
      await extra.next('connected');
      await first.closed; // the server ended it (reconnect off: the stream is over)
      expect(streams.size).toBe(MAX_PROJECT_STREAMS + 1);
      await update('p9', 'default', 6);
      expect((await other.next('lobby_updated')).id).toBe(`${LOBBY}:6`);
    } finally {
      for (const s of [other, first, ...rest]) s.close();
    }
  });
});
