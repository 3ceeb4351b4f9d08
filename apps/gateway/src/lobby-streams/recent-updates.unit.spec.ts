import { LobbyUpdate } from '@spawnpoint/proto';
import { RecentUpdates } from './recent-updates';
import { eventId, sseFrame } from './sse';

const update = (lobbyId: string, revision: number): LobbyUpdate => ({ projectId: 'p', config: 'default', lobbyId, revision, kind: 'updated', lobby: { revision }, removed: [] });

describe('RecentUpdates', () => {
  it('returns the updates of a lobby after a revision, in revision order', () => {
    const r = new RecentUpdates(5_000);
    r.add(update('a', 3), 0);
    r.add(update('a', 2), 0);
    r.add(update('b', 9), 0);
    r.add(update('a', 4), 0);
    expect(r.after('a', 2).map((u) => u.revision)).toEqual([3, 4]);
    expect(r.after('c', 0)).toEqual([]);
  });

  it('forgets updates older than its window', () => {
    const r = new RecentUpdates(5_000);
    r.add(update('a', 1), 0);
    r.add(update('a', 2), 4_000);
    r.prune(6_000);
    expect(r.after('a', 0).map((u) => u.revision)).toEqual([2]);
    r.prune(10_000);
    expect(r.after('a', 0)).toEqual([]);
  });
});

describe('sseFrame', () => {
  it('frames one event with id, name and one-line JSON data', () => {
    expect(sseFrame(eventId('l1', 7), 'lobby_updated', { a: 'x\ny' })).toBe('id: l1:7\nevent: lobby_updated\ndata: {"a":"x\\ny"}\n\n');
  });
});
