// The legacy dialect of the lobby event stream: the Unity SDK's event names and payloads.
import type { LobbyView } from '@spawnpoint/domain';
import { legacyDialect } from './legacy-events';

const ID = '6f0c6f5e-0000-4000-8000-000000000001';
const lobby: LobbyView = {
  id: ID, code: 'ABC234', config: 'default', name: 'L', status: 'in_queue', host: 'alice', maxPlayers: 8, currentPlayers: 1, region: 'us-east', isPrivate: false,
  allowLateJoin: false, settings: {}, players: [{ id: 'alice', state: { ready: true }, isHost: true }], server: null, matchmaking: null, createdAt: 't0', updatedAt: 't1',
};
/** A frame's event name and data, as the SDK reads them (`event: ` and `data: ` with a space). */
const read = (frame: string) => {
  const lines = frame.split('\n');
  expect(frame.endsWith('\n\n')).toBe(true);
  return { event: lines.find((l) => l.startsWith('event: '))!.slice(7), data: JSON.parse(lines.find((l) => l.startsWith('data: '))!.slice(6)) };
};

describe('legacy lobby stream dialect', () => {
  const d = legacyDialect(600);

  it('connected carries {message, lobby} with the legacy lobby', () => {
    const f = read(d.connected({ lobbyId: ID, revision: 3, lobby, replay: [] }));
    expect(f.event).toBe('connected');
    expect(f.data).toEqual({ message: expect.any(String), lobby: expect.objectContaining({ id: ID, status: 'waiting', timeout: 600, lobbyStateRealTime: { alice: { ready: true } } }) });
  });

  it('updates are lobby:updated (the legacy lobby), deletions lobby:deleted {lobbyId}; match events and queue stats stay v3 only', () => {
    const updated = read(d.update({ projectId: 'p', config: 'default', lobbyId: ID, revision: 4, kind: 'match_found', lobby, removed: [] }));
    expect(updated).toEqual({ event: 'lobby:updated', data: expect.objectContaining({ id: ID, players: ['alice'], inviteCode: 'ABC234' }) });
    expect(read(d.update({ projectId: 'p', config: 'default', lobbyId: ID, revision: 5, kind: 'deleted', lobby: null, reason: 'host_left', removed: [] })))
      .toEqual({ event: 'lobby:deleted', data: { lobbyId: ID } });
    expect(d.matchEvents).toBe(false);
    expect(d.ping(ID, 5)).toMatch(/^:[^\n]*\n\n$/);
  });

  it('replays the v3 events it knows in the legacy dialect and skips the others', () => {
    expect(read(d.replayed({ id: `${ID}:2`, event: 'lobby_updated', data: lobby })).event).toBe('lobby:updated');
    expect(read(d.replayed({ id: `${ID}:3`, event: 'lobby_deleted', data: { id: ID, reason: 'admin' } })).data).toEqual({ lobbyId: ID });
    expect(d.replayed({ id: `${ID}:3`, event: 'match_found', data: lobby })).toBe('');
  });

  it('is one dialect per timeout, so an update is framed once for all streams of a configuration', () => {
    expect(legacyDialect(600)).toBe(d);
    expect(legacyDialect(300)).not.toBe(d);
  });
});
