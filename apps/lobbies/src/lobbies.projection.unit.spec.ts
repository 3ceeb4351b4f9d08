import { RecordedEvent } from '@spawnpoint/eventstore';
import { foldLobbies, LobbyRow } from './lobbies.projection';

const t0 = '2026-11-21T10:00:00.000Z';
let position = 0n;
const revisions = new Map<unknown, number>();
const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => {
  const revision = (revisions.get(data.lobbyId) ?? -1) + 1;
  revisions.set(data.lobbyId, revision);
  return { id: String(++position), streamId: `lobby-${data.lobbyId}`, revision, position, type, data, metadata: { projectId: 'p1' }, createdAt: new Date(t0) };
};
const created = (lobbyId: string) => recorded('LobbyCreated', {
  lobbyId, projectId: 'p1', config: 'default', code: null, hostId: 'alice', name: null, maxPlayers: 4, region: 'us-east',
  isPrivate: false, allowLateJoin: false, settings: {}, hostState: {}, at: t0,
});
const joined = (lobbyId: string, playerId: string) => recorded('PlayerJoined', { lobbyId, playerId, state: {}, at: t0 });

describe('foldLobbies (the lobbies read model, per batch)', () => {
  beforeEach(() => revisions.clear());

  it('folds several events of one lobby into one row to write, with the last revision', () => {
    const { upsert, remove } = foldLobbies(new Map(), [created('a'), joined('a', 'bob'), joined('a', 'carol')]);
    expect(remove).toEqual([]);
    expect(upsert).toHaveLength(1);
    expect(upsert[0].state.players.map((p) => p.id)).toEqual(['alice', 'bob', 'carol']);
    expect(upsert[0].revision).toBe(2);
  });

  it('continues from the stored state, and removes a lobby deleted in the batch', () => {
    const stored = foldLobbies(new Map(), [created('a'), created('b')]);
    const rows = new Map<string, LobbyRow>(stored.upsert.map((r) => [r.state.id, r]));
    const { upsert, remove } = foldLobbies(rows, [joined('a', 'bob'), recorded('LobbyDeleted', { lobbyId: 'b', reason: 'admin', at: t0 })]);
    expect(upsert.map((r) => [r.state.id, r.state.players.length])).toEqual([['a', 2]]);
    expect(remove).toEqual(['b']);
  });

  it('skips events the row has folded already (a batch applied twice changes nothing)', () => {
    const batch = [created('a'), joined('a', 'bob')];
    const once = foldLobbies(new Map(), batch);
    const rows = new Map<string, LobbyRow>(once.upsert.map((r) => [r.state.id, r]));
    const carol = joined('a', 'carol');
    const again = foldLobbies(rows, [...batch, carol]);
    expect(again.upsert[0].state.players.map((p) => p.id)).toEqual(['alice', 'bob', 'carol']);
    expect(again.upsert[0].revision).toBe(2);
    expect(foldLobbies(rows, [carol])).toEqual({ upsert: [], remove: [] });
  });

  it('ignores events of a lobby that is not stored (deleted before, replayed)', () => {
    expect(foldLobbies(new Map(), [joined('gone', 'bob')])).toEqual({ upsert: [], remove: [] });
  });
});
