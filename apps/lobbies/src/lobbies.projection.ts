// The lobbies read model: one row per live lobby with its folded state (deleted lobbies are removed).
// Hot path (every join and state change): a batch is folded in memory from one read of its lobbies'
// rows and written back with one upsert and one delete, in plain SQL.
import { LiveLobbyState, lobbyDecider, LobbyEvent, LobbyState } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, Tx } from '@spawnpoint/platform';

/** Folds `events` onto `rows` (lobby id → state; absent: not live). Returns the lobbies to write and to delete. */
export function foldLobbies(rows: Map<string, LobbyState>, events: RecordedEvent[]): { upsert: LiveLobbyState[]; remove: string[] } {
  const touched = new Set<string>();
  for (const recorded of events) {
    const event = { type: recorded.type, data: recorded.data } as LobbyEvent;
    const id = event.data.lobbyId;
    const before = event.type === 'LobbyCreated' ? lobbyDecider.initialState : rows.get(id);
    if (!before) continue; // deleted already (replayed after a rebuild)
    let after = lobbyDecider.evolve(before, event);
    if (after.status !== 'none' && after.status !== 'deleted' && !after.projectId) {
      after = { ...after, projectId: String(recorded.metadata?.projectId ?? '') };
    }
    if (after.status === 'deleted' || after.status === 'none') rows.delete(id);
    else rows.set(id, after);
    touched.add(id);
  }
  const upsert: LiveLobbyState[] = [];
  const remove: string[] = [];
  for (const id of touched) {
    const s = rows.get(id);
    if (s && s.status !== 'none' && s.status !== 'deleted') upsert.push(s);
    else remove.push(id);
  }
  return { upsert, remove };
}

const row = (s: LiveLobbyState) => ({
  id: s.id, projectId: s.projectId, config: s.config, status: s.status, region: s.region, isPrivate: s.isPrivate,
  playerCount: s.players.length, maxPlayers: s.maxPlayers, serverId: s.server?.instance_id ?? null, state: s,
  createdAt: s.createdAt, updatedAt: s.updatedAt,
});

export const lobbiesProjection: Projection = {
  name: 'lobbies',
  categories: ['lobby'],
  apply(event: RecordedEvent, tx: Tx) {
    return this.applyBatch!([event], tx);
  },
  async applyBatch(events: RecordedEvent[], tx: Tx) {
    const ids = [...new Set(events.map((e) => (e.data as { lobbyId: string }).lobbyId))];
    const found = await tx.$queryRaw<{ id: string; state: LobbyState }[]>`SELECT id::text AS id, state FROM lobbies WHERE id = ANY(${ids}::uuid[])`;
    const { upsert, remove } = foldLobbies(new Map(found.map((r) => [r.id, r.state])), events);
    if (upsert.length > 0) {
      await tx.$executeRaw`
        INSERT INTO lobbies (id, project_id, config, status, region, is_private, player_count, max_players, server_id, state, created_at, updated_at)
        SELECT (r->>'id')::uuid, r->>'projectId', r->>'config', r->>'status', r->>'region', (r->>'isPrivate')::boolean,
               (r->>'playerCount')::int, (r->>'maxPlayers')::int, r->>'serverId', r->'state', (r->>'createdAt')::timestamptz, (r->>'updatedAt')::timestamptz
        FROM jsonb_array_elements(${JSON.stringify(upsert.map(row))}::jsonb) AS r
        ON CONFLICT (id) DO UPDATE SET
          status = EXCLUDED.status, region = EXCLUDED.region, is_private = EXCLUDED.is_private, player_count = EXCLUDED.player_count,
          max_players = EXCLUDED.max_players, server_id = EXCLUDED.server_id, state = EXCLUDED.state, updated_at = EXCLUDED.updated_at`;
    }
    if (remove.length > 0) await tx.$executeRaw`DELETE FROM lobbies WHERE id = ANY(${remove}::uuid[])`;
  },
};
