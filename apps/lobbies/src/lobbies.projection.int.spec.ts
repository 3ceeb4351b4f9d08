// The lobbies read model on real PostgreSQL, run by two projection runners at once (two replicas of the
// lobbies service): every event is folded exactly once into the row, whichever replica writes it.
import type { PostgresEventStore } from '@spawnpoint/eventstore';
import { ProjectionRunner } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';
import { randomUUID } from 'node:crypto';
import { createProjectionTestBed, ProjectionTestBed } from '../../../test/support/projections';
import { lobbiesProjection } from './lobbies.projection';

const t0 = '2026-11-22T10:00:00.000Z';

describe('lobbies read model (two replicas)', () => {
  let bed: ProjectionTestBed;
  let store: PostgresEventStore;
  let models: ReadModels;

  beforeAll(async () => {
    bed = await createProjectionTestBed('lobbyproj');
    ({ store, models } = bed);
  });
  afterAll(() => bed?.close());

  it('folds every event once into the row, with its revision; deletion removes it', async () => {
    const replicas = [new ProjectionRunner(store, models, [lobbiesProjection()]), new ProjectionRunner(store, models, [lobbiesProjection()])];
    await Promise.all(replicas.map((r) => r.start()));
    try {
      const lobbyId = randomUUID();
      const stream = `lobby-${lobbyId}`;
      const append = async (revision: number, type: string, data: Record<string, unknown>) => {
        const { position } = await store.appendToStream(stream, [{ type, data: { lobbyId, ...data }, metadata: { projectId: 'p1' } }], revision === 0 ? 'no_stream' : revision - 1);
        await Promise.all(replicas.map((r) => r.waitFor(position, stream)));
      };
      await append(0, 'LobbyCreated', {
        projectId: 'p1', config: 'default', code: null, hostId: 'host', name: null, maxPlayers: 32, region: 'us-east',
        isPrivate: false, allowLateJoin: false, settings: {}, hostState: {}, at: t0,
      });
      for (let i = 1; i <= 20; i++) await append(i, 'PlayerJoined', { playerId: `p${i}`, state: { n: i }, at: t0 });
      const row = await models.lobby.findUnique({ where: { id: lobbyId } });
      const players = (row?.state as { players: { id: string }[] }).players.map((p) => p.id);
      expect(players).toEqual(['host', ...Array.from({ length: 20 }, (_, i) => `p${i + 1}`)]);
      expect(row).toMatchObject({ playerCount: 21, revision: 20 });

      await append(21, 'LobbyDeleted', { reason: 'admin', at: t0 });
      expect(await models.lobby.findUnique({ where: { id: lobbyId } })).toBeNull();
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });

  it('keeps the sweeper filter columns: last member request and the oldest member last request', async () => {
    const runner = new ProjectionRunner(store, models, [lobbiesProjection()]);
    await runner.start();
    try {
      const lobbyId = randomUUID();
      const stream = `lobby-${lobbyId}`;
      let revision = -1;
      const append = async (type: string, data: Record<string, unknown>) => {
        const { position } = await store.appendToStream(stream, [{ type, data: { lobbyId, ...data }, metadata: { projectId: 'p1' } }], revision < 0 ? 'no_stream' : revision);
        revision++;
        await runner.waitFor(position, stream);
        return models.lobby.findUniqueOrThrow({ where: { id: lobbyId } });
      };
      const at = (s: number) => new Date(Date.parse(t0) + s * 1000).toISOString();
      let row = await append('LobbyCreated', {
        projectId: 'p1', config: 'default', code: null, hostId: 'host', name: null, maxPlayers: 8, region: 'us-east',
        isPrivate: false, allowLateJoin: false, settings: {}, hostState: {}, at: at(0),
      });
      expect([row.activityAt.toISOString(), row.seenMinAt?.toISOString()]).toEqual([at(0), at(0)]);
      row = await append('PlayerJoined', { playerId: 'guest', state: {}, at: at(10) });
      expect([row.activityAt.toISOString(), row.seenMinAt?.toISOString()]).toEqual([at(10), at(0)]);
      row = await append('PlayerStateUpdated', { playerId: 'host', state: { ready: true }, at: at(20) });
      expect([row.activityAt.toISOString(), row.seenMinAt?.toISOString()]).toEqual([at(20), at(10)]);
    } finally {
      await runner.stop();
    }
  });
});
