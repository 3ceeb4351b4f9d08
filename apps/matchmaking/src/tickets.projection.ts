// The matchmaking service's read model: the queue (match_tickets) and the waits of matched lobbies
// (match_waits), from the lobbies' events, which carry each ticket whole. Once committed, each event also
// reaches the in-memory QueueBook (`applied`, sent to the queue worker), so the matcher never reads the
// table on its hot path; a start, or a new queue worker, loads the book from the table. Idempotent: a
// ticket row is replaced only by a newer ticket.
import type { BackfillEvent, MatchEvent, QueueTicket } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { observeTimeToMatch, Projection, SqlTx } from '@spawnpoint/platform';
import { fillKey } from './match-id';
import { OpenMatches } from './open-matches';
import { QueueBookProxy } from './queue-book-proxy';
import { applyTicketWrites, issued, LEAVES_QUEUE, TicketEvent, ticketWrites } from './ticket-writes';

const LOAD = 'SELECT lobby_id, project_id, config, mode, region, ticket, queued_at, players FROM match_tickets WHERE held_by IS NULL';

const asEvent = (e: RecordedEvent) => ({ type: e.type, data: e.data }) as TicketEvent;

/** Match events after which none of its lobbies waits for it any more. */
const MATCH_OVER = new Set(['MatchAborted', 'MatchDissolved', 'MatchFailed', 'MatchCompleted', 'MatchFormed']);

/** `queued`: told when a ticket came or a match ended (lobbies back in the queue): the matcher runs soon. */
export function ticketsProjection(book: QueueBookProxy, open: OpenMatches, queued: () => void = () => undefined): Projection {
  return {
    name: 'match-tickets',
    categories: ['lobby', 'match', 'backfill'],
    // A ticket reaches the matcher when its batch commits: under a steady stream the runner's default
    // 100 ms between batches would be most of enqueue → matched (bench/matchmaking-http.js, paced).
    minBatchIntervalMs: 0,
    async applySql(events, sql) {
      const waits = await applyTicketWrites(ticketWrites(events.map(asEvent)), sql);
      // Once committed (a batch retried would record them again).
      if (waits.length) return () => waits.forEach((w) => observeTimeToMatch(w.mode, Math.max(0, w.seconds)));
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
