import { LobbyState } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { foldLobbies } from './lobbies.projection';

const t0 = '2026-11-21T10:00:00.000Z';
let position = 0n;
const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: String(++position), streamId: `lobby-${data.lobbyId}`, revision: 0, position, type, data, metadata: { projectId: 'p1' }, createdAt: new Date(t0),
});
const created = (lobbyId: string) => recorded('LobbyCreated', {
  lobbyId, projectId: 'p1', config: 'default', code: null, hostId: 'alice', name: null, maxPlayers: 4, region: 'us-east',
  isPrivate: false, allowLateJoin: false, settings: {}, hostState: {}, at: t0,
});
const joined = (lobbyId: string, playerId: string) => recorded('PlayerJoined', { lobbyId, playerId, state: {}, at: t0 });

describe('foldLobbies (the lobbies read model, per batch)', () => {
  it('folds several events of one lobby into one row to write', () => {
    const { upsert, remove } = foldLobbies(new Map(), [created('a'), joined('a', 'bob'), joined('a', 'carol')]);
    expect(remove).toEqual([]);
    expect(upsert).toHaveLength(1);
    expect(upsert[0].players.map((p) => p.id)).toEqual(['alice', 'bob', 'carol']);
  });

  it('continues from the stored state, and removes a lobby deleted in the batch', () => {
    const stored = foldLobbies(new Map(), [created('a'), created('b')]);
    const rows = new Map<string, LobbyState>(stored.upsert.map((s) => [s.id, s]));
    const { upsert, remove } = foldLobbies(rows, [joined('a', 'bob'), recorded('LobbyDeleted', { lobbyId: 'b', reason: 'admin', at: t0 })]);
    expect(upsert.map((s) => [s.id, s.players.length])).toEqual([['a', 2]]);
    expect(remove).toEqual(['b']);
  });

  it('ignores events of a lobby that is not stored (deleted before, replayed)', () => {
    expect(foldLobbies(new Map(), [joined('gone', 'bob')])).toEqual({ upsert: [], remove: [] });
  });
});
