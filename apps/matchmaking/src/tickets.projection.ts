// The matchmaking service's read model: the queue (match_tickets) and the waits of matched lobbies
// (match_waits), from the lobbies' events, which carry each ticket whole. Once committed, each event also
// reaches the in-memory QueueBook (`applied`, sent to the queue worker), so the matcher never reads the
// table on its hot path; a start, or a new queue worker, loads the book from the table. Idempotent: a
// ticket row is replaced only by a newer ticket.
import type { BackfillEvent, LobbyEvent, MatchEvent, QueueTicket } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, SqlTx } from '@spawnpoint/platform';
import { fillKey } from './match-id';
import { OpenMatches } from './open-matches';
import { QueueBookProxy } from './queue-book-proxy';

const UPSERT = `
  INSERT INTO match_tickets (lobby_id, project_id, config, mode, region, ticket, queued_at, players, held_by)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)
  ON CONFLICT (lobby_id) DO UPDATE SET project_id = EXCLUDED.project_id, config = EXCLUDED.config, mode = EXCLUDED.mode,
    region = EXCLUDED.region, ticket = EXCLUDED.ticket, queued_at = EXCLUDED.queued_at, players = EXCLUDED.players, held_by = NULL
  WHERE match_tickets.ticket <= EXCLUDED.ticket`;
const HOLD = 'UPDATE match_tickets SET held_by = $2 WHERE lobby_id = $1 AND ticket = $3';
const REMOVE = 'DELETE FROM match_tickets WHERE lobby_id = $1 RETURNING project_id, config, mode, region, queued_at, jsonb_array_length(players) AS players';
const WAIT = `INSERT INTO match_waits (lobby_id, match_id, project_id, config, mode, region, players, queued_at, matched_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`;
const LOAD = 'SELECT lobby_id, project_id, config, mode, region, ticket, queued_at, players FROM match_tickets WHERE held_by IS NULL';

type Event = LobbyEvent | MatchEvent | BackfillEvent;
const asEvent = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as Event;

/** The ticket an event issues, if it issues one. */
function issued(e: Event): QueueTicket | null {
  if (e.type === 'MatchmakingStarted' || e.type === 'MatchmakingTicketChanged') return e.data.queue;
  return null;
}

/** Events that take a lobby out of the queue for good (a reservation only holds it). */
const LEAVES_QUEUE = new Set(['LobbyMatchFound', 'MatchmakingEnded', 'LobbyDeleted', 'GameStarting']);
/** Match events after which none of its lobbies waits for it any more. */
const MATCH_OVER = new Set(['MatchAborted', 'MatchDissolved', 'MatchFailed', 'MatchCompleted', 'MatchFormed']);

async function applyOne(e: Event, sql: SqlTx): Promise<void> {
  const q = issued(e);
  if (q) {
    await sql.query(UPSERT, [(e.data as { lobbyId: string }).lobbyId, q.projectId, q.config, q.mode, q.region, q.ticket, q.queuedAt, JSON.stringify(q.players)]);
  } else if (e.type === 'LobbyReserved') {
    await sql.query(HOLD, [e.data.lobbyId, e.data.matchId, e.data.ticket]);
  } else if (LEAVES_QUEUE.has(e.type)) {
    const { rows } = await sql.query<{ project_id: string; config: string; mode: string; region: string; queued_at: Date; players: number }>(REMOVE, [(e.data as { lobbyId: string }).lobbyId]);
    if (e.type === 'LobbyMatchFound' && rows[0]) {
      const r = rows[0];
      await sql.query(WAIT, [e.data.lobbyId, e.data.matchId, r.project_id, r.config, r.mode, r.region, r.players, r.queued_at, e.data.at]);
    }
  }
}

/** `queued`: told when a ticket came or a match ended (lobbies back in the queue): the matcher runs soon. */
export function ticketsProjection(book: QueueBookProxy, open: OpenMatches, queued: () => void = () => undefined): Projection {
  return {
    name: 'match-tickets',
    categories: ['lobby', 'match', 'backfill'],
    // A ticket reaches the matcher when its batch commits: under a steady stream the runner's default
    // 100 ms between batches would be most of enqueue → matched (bench/matchmaking-http.js, paced).
    minBatchIntervalMs: 0,
    async applySql(events, sql) {
      for (const recorded of events) await applyOne(asEvent(recorded), sql);
    },
    applied(recorded) {
      const e = asEvent(recorded);
      if (recorded.streamId.startsWith('match-') || recorded.streamId.startsWith('backfill-')) open.apply(e as MatchEvent | BackfillEvent);
      if (e.type === 'MatchFillAborted' || e.type === 'MatchFilled' || e.type === 'MatchLobbyLeft') {
        if (e.type !== 'MatchLobbyLeft') book.matchOver(fillKey(e.data.matchId));
        queued(); // a lobby back in the queue, or a slot free: a round soon
        return;
      }
      const q = issued(e);
      if (q) {
        book.put((e.data as { lobbyId: string }).lobbyId, q);
        queued();
      } else if (e.type === 'LobbyReserved' || LEAVES_QUEUE.has(e.type)) {
        book.remove((e.data as { lobbyId: string }).lobbyId);
      } else if (MATCH_OVER.has(e.type)) {
        book.matchOver((e.data as { matchId: string }).matchId);
        queued();
      }
    },
  };
}

/** The queue as stored: the book's load, at a start (after the projection's catch-up: a ticket heard twice is kept once) and into a new queue worker. */
export async function ticketRows(sql: SqlTx): Promise<[string, QueueTicket][]> {
  const { rows } = await sql.query<{ lobby_id: string; project_id: string; config: string; mode: string; region: string; ticket: number; queued_at: Date; players: QueueTicket['players'] }>(LOAD);
  return rows.map((r) => [r.lobby_id, { projectId: r.project_id, config: r.config, mode: r.mode, region: r.region, ticket: r.ticket, queuedAt: r.queued_at.toISOString(), players: r.players }]);
}
