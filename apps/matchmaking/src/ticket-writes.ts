// What a batch of events does to match_tickets and match_waits, as data (pure), and the statements that
// apply it: a few multi-row statements per batch instead of a round trip per event (a 100,000-lobby burst
// took the projection 13.6 s to catch up one event at a time: bench/README, session 14).
import type { BackfillEvent, LobbyEvent, MatchEvent, QueueTicket } from '@spawnpoint/domain';
import type { SqlTx } from '@spawnpoint/platform';

export type TicketEvent = LobbyEvent | MatchEvent | BackfillEvent;

/** Events that take a lobby out of the queue for good (a reservation only holds it). */
export const LEAVES_QUEUE = new Set(['LobbyMatchFound', 'MatchmakingEnded', 'LobbyDeleted', 'GameStarting']);

/** The ticket an event issues, if it issues one. */
export function issued(e: TicketEvent): QueueTicket | null {
  if (e.type === 'MatchmakingStarted' || e.type === 'MatchmakingTicketChanged') return e.data.queue;
  return null;
}

/**
 * Writes that touch each lobby at most once, so their order within the segment does not matter; a batch
 * becomes consecutive segments, a new one where a lobby comes again, which keeps the events' order per lobby.
 */
export interface TicketSegment {
  upserts: { lobbyId: string; q: QueueTicket }[];
  holds: { lobbyId: string; matchId: string; ticket: number }[];
  /** `wait`: the lobby left for a match (LobbyMatchFound): its wait is recorded from the removed row. */
  removes: { lobbyId: string; wait: { matchId: string; at: string } | null }[];
}

const emptySegment = (): TicketSegment => ({ upserts: [], holds: [], removes: [] });

export function ticketWrites(events: TicketEvent[]): TicketSegment[] {
  const out: TicketSegment[] = [];
  let seg = emptySegment();
  let seen = new Set<string>();
  const take = (lobbyId: string): TicketSegment => {
    if (seen.has(lobbyId)) {
      out.push(seg);
      seg = emptySegment();
      seen = new Set();
    }
    seen.add(lobbyId);
    return seg;
  };
  for (const e of events) {
    const q = issued(e);
    if (q) {
      const lobbyId = (e.data as { lobbyId: string }).lobbyId;
      take(lobbyId).upserts.push({ lobbyId, q });
    } else if (e.type === 'LobbyReserved') {
      take(e.data.lobbyId).holds.push({ lobbyId: e.data.lobbyId, matchId: e.data.matchId, ticket: e.data.ticket });
    } else if (LEAVES_QUEUE.has(e.type)) {
      const lobbyId = (e.data as { lobbyId: string }).lobbyId;
      const wait = e.type === 'LobbyMatchFound' ? { matchId: e.data.matchId, at: e.data.at } : null;
      take(lobbyId).removes.push({ lobbyId, wait });
    }
  }
  if (seen.size) out.push(seg);
  return out;
}

// A ticket row is replaced only by a newer ticket (idempotent when the batch is read again).
const UPSERT = {
  name: 'match-tickets-upsert',
  text: `INSERT INTO match_tickets (lobby_id, project_id, config, mode, region, ticket, queued_at, players, held_by)
  SELECT l, pr, c, m, r, t, qa, p::jsonb, NULL
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::timestamptz[], $8::text[]) AS u(l, pr, c, m, r, t, qa, p)
  ON CONFLICT (lobby_id) DO UPDATE SET project_id = EXCLUDED.project_id, config = EXCLUDED.config, mode = EXCLUDED.mode,
    region = EXCLUDED.region, ticket = EXCLUDED.ticket, queued_at = EXCLUDED.queued_at, players = EXCLUDED.players, held_by = NULL
  WHERE match_tickets.ticket <= EXCLUDED.ticket`,
};
const HOLD = {
  name: 'match-tickets-hold',
  text: `UPDATE match_tickets m SET held_by = u.match_id
  FROM unnest($1::text[], $2::text[], $3::int[]) AS u(lobby_id, match_id, ticket)
  WHERE m.lobby_id = u.lobby_id AND m.ticket = u.ticket`,
};
// The removed rows of lobbies that left for a match become their waits, in the same statement. The waits
// it inserted come back (a wait already recorded, by another replica or an earlier run, does not): each is
// observed once as time to match.
const REMOVE = {
  name: 'match-tickets-remove',
  text: `WITH gone AS (DELETE FROM match_tickets WHERE lobby_id = ANY($1::text[])
    RETURNING lobby_id, project_id, config, mode, region, queued_at, jsonb_array_length(players) AS players)
  INSERT INTO match_waits (lobby_id, match_id, project_id, config, mode, region, players, queued_at, matched_at)
  SELECT g.lobby_id, w.match_id, g.project_id, g.config, g.mode, g.region, g.players, g.queued_at, w.at
  FROM gone g JOIN unnest($2::text[], $3::text[], $4::timestamptz[]) AS w(lobby_id, match_id, at) ON w.lobby_id = g.lobby_id
  ON CONFLICT DO NOTHING
  RETURNING mode, extract(epoch FROM matched_at - queued_at)::float8 AS seconds`,
};

/** A lobby's wait this batch recorded: its mode and queued → match found. */
export interface RecordedWait { mode: string; seconds: number }

export async function applyTicketWrites(segments: TicketSegment[], sql: SqlTx): Promise<RecordedWait[]> {
  const waits: RecordedWait[] = [];
  for (const s of segments) {
    if (s.upserts.length) {
      const u = s.upserts;
      await sql.query(UPSERT, [
        u.map((x) => x.lobbyId), u.map((x) => x.q.projectId), u.map((x) => x.q.config), u.map((x) => x.q.mode),
        u.map((x) => x.q.region), u.map((x) => x.q.ticket), u.map((x) => x.q.queuedAt), u.map((x) => JSON.stringify(x.q.players)),
      ]);
    }
    if (s.holds.length) {
      await sql.query(HOLD, [s.holds.map((h) => h.lobbyId), s.holds.map((h) => h.matchId), s.holds.map((h) => h.ticket)]);
    }
    if (s.removes.length) {
      const found = s.removes.filter((r) => r.wait);
      const { rows } = await sql.query<RecordedWait>(REMOVE, [
        s.removes.map((r) => r.lobbyId), found.map((r) => r.lobbyId), found.map((r) => r.wait!.matchId), found.map((r) => r.wait!.at),
      ]);
      waits.push(...rows);
    }
  }
  return waits;
}
