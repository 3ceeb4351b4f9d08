// The lobbies read model: one row per live lobby with its folded state (deleted lobbies are removed).
// Hot path (every join and state change): a batch is folded in memory from one read of its lobbies'
// rows and written back with one upsert and one delete, in plain SQL on a pg connection. Each row keeps
// the stream revision it has folded, so an event applied twice (replicas) changes nothing.
import { LiveLobbyState, lobbyDecider, LobbyEvent, LobbyState } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection } from '@spawnpoint/platform';

export interface LobbyRow {
  state: LobbyState;
  revision: number;
}

export interface FoldedLobby {
  state: LiveLobbyState;
  revision: number;
}

/** Folds `events` onto `rows` (lobby id → row; absent: not live). Returns the lobbies to write and to delete. */
export function foldLobbies(rows: Map<string, LobbyRow>, events: RecordedEvent[]): { upsert: FoldedLobby[]; remove: string[] } {
  const touched = new Set<string>();
  for (const recorded of events) {
    const event = { type: recorded.type, data: recorded.data } as LobbyEvent;
    const id = event.data.lobbyId;
    const row = rows.get(id);
    if (row && recorded.revision <= row.revision) continue; // folded already
    const before = row?.state ?? (event.type === 'LobbyCreated' ? lobbyDecider.initialState : undefined);
    if (!before) continue; // deleted already (replayed after a rebuild)
    let after = lobbyDecider.evolve(before, event);
    if (after.status !== 'none' && after.status !== 'deleted' && !after.projectId) {
      after = { ...after, projectId: String(recorded.metadata?.projectId ?? '') };
    }
    if (after.status === 'deleted' || after.status === 'none') rows.delete(id);
    else rows.set(id, { state: after, revision: recorded.revision });
    touched.add(id);
  }
  const upsert: FoldedLobby[] = [];
  const remove: string[] = [];
  for (const id of touched) {
    const row = rows.get(id);
    if (row && row.state.status !== 'none' && row.state.status !== 'deleted') upsert.push({ state: row.state, revision: row.revision });
    else remove.push(id);
  }
  return { upsert, remove };
}

const oldest = (times: string[]) => (times.length ? times.reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a)) : null);

const toRow = ({ state: s, revision }: FoldedLobby) => ({
  id: s.id, projectId: s.projectId, config: s.config, status: s.status, region: s.region, isPrivate: s.isPrivate,
  playerCount: s.players.length, maxPlayers: s.maxPlayers, serverId: s.server?.instance_id ?? null, state: s,
  createdAt: s.createdAt, updatedAt: s.updatedAt, revision, activityAt: s.lastActivityAt, seenMinAt: oldest(s.players.map((p) => p.lastSeenAt)),
});

const SELECT_ROWS = 'SELECT id::text AS id, state, revision FROM lobbies WHERE id = ANY($1::uuid[])';
// The revision condition keeps a replica that is behind from writing an older fold over a newer one.
const UPSERT_ROWS = `
  INSERT INTO lobbies (id, project_id, config, status, region, is_private, player_count, max_players, server_id, state, created_at, updated_at, revision, activity_at, seen_min_at)
  SELECT (r->>'id')::uuid, r->>'projectId', r->>'config', r->>'status', r->>'region', (r->>'isPrivate')::boolean,
         (r->>'playerCount')::int, (r->>'maxPlayers')::int, r->>'serverId', r->'state', (r->>'createdAt')::timestamptz,
         (r->>'updatedAt')::timestamptz, (r->>'revision')::int, (r->>'activityAt')::timestamptz, (r->>'seenMinAt')::timestamptz
  FROM jsonb_array_elements($1::jsonb) AS r
  ON CONFLICT (id) DO UPDATE SET
    status = EXCLUDED.status, region = EXCLUDED.region, is_private = EXCLUDED.is_private, player_count = EXCLUDED.player_count,
    max_players = EXCLUDED.max_players, server_id = EXCLUDED.server_id, state = EXCLUDED.state, updated_at = EXCLUDED.updated_at,
    revision = EXCLUDED.revision, activity_at = EXCLUDED.activity_at, seen_min_at = EXCLUDED.seen_min_at
  WHERE lobbies.revision < EXCLUDED.revision`;
const DELETE_ROWS = 'DELETE FROM lobbies WHERE id = ANY($1::uuid[])';
/** Lobbies per upsert statement. */
const UPSERT_SLICE = 50;

/**
 * The lobbies projection. It keeps the rows it last committed in memory (bounded), so a batch reads only
 * the lobbies it has not seen: this process receives every lobby event in order, so a kept row plus the
 * events after its revision is the current state. Another replica writing the same rows changes nothing
 * (the upsert keeps the newer revision); after a failed batch the copies are dropped.
 */
export function lobbiesProjection(capacity = 50_000): Projection {
  const kept = new Map<string, LobbyRow>();
  return {
    name: 'lobbies',
    categories: ['lobby'],
    async applySql(events, sql) {
      const rows = new Map<string, LobbyRow>();
      const missing = new Set<string>();
      for (const e of events) {
        const id = (e.data as { lobbyId: string }).lobbyId;
        const row = kept.get(id);
        if (row) rows.set(id, row);
        else missing.add(id);
      }
      if (missing.size > 0) {
        const found = await sql.query<{ id: string; state: LobbyState; revision: number }>(SELECT_ROWS, [[...missing]]);
        for (const r of found.rows) rows.set(r.id, { state: r.state, revision: r.revision });
      }
      const { upsert, remove } = foldLobbies(rows, events);
      // In slices: serialising a few hundred whole lobbies at once held the event loop for ~10 ms, and
      // every request in flight waited for it; a slice lets them run while PostgreSQL writes the last one.
      for (let i = 0; i < upsert.length; i += UPSERT_SLICE) {
        await sql.query(UPSERT_ROWS, [JSON.stringify(upsert.slice(i, i + UPSERT_SLICE).map(toRow))]);
      }
      if (remove.length > 0) await sql.query(DELETE_ROWS, [remove]);
      return () => {
        for (const id of remove) kept.delete(id);
        for (const row of upsert) {
          kept.delete(row.state.id);
          kept.set(row.state.id, row);
        }
        // Oldest first out: a Map iterates in insertion order.
        for (const id of kept.keys()) {
          if (kept.size <= capacity) break;
          kept.delete(id);
        }
      };
    },
    reset: () => kept.clear(),
  };
}
