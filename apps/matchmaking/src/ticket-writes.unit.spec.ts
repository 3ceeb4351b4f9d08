// A batch's writes to the tickets table: each lobby at most once per segment, the events' order per lobby kept.
import type { QueueTicket } from '@spawnpoint/domain';
import { TicketEvent, ticketWrites } from './ticket-writes';

const q = (ticket: number): QueueTicket =>
  ({ projectId: 'p1', config: 'arena', mode: 'duel', ticket, queuedAt: '2026-11-26T10:00:00.000Z', region: 'eu-west', players: [{ id: 'ann', state: {} }] });
const ev = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as TicketEvent;
const started = (lobbyId: string, n: number) => ev('MatchmakingStarted', { lobbyId, queue: q(n) });

describe('ticketWrites', () => {
  it('puts a burst of distinct lobbies in one segment', () => {
    const segs = ticketWrites(Array.from({ length: 500 }, (_, i) => started(`l${i}`, 1)));
    expect(segs).toHaveLength(1);
    expect(segs[0].upserts).toHaveLength(500);
  });

  it('starts a new segment where a lobby comes again, so its writes keep their order', () => {
    const segs = ticketWrites([
      started('a', 1),
      started('b', 1),
      ev('LobbyReserved', { lobbyId: 'a', matchId: 'm1', ticket: 1, at: 'x' }),
      ev('LobbyMatchFound', { lobbyId: 'a', matchId: 'm1', at: '2026-11-26T10:00:01.000Z' }),
      ev('MatchmakingEnded', { lobbyId: 'b' }),
    ]);
    expect(segs).toEqual([
      { upserts: [{ lobbyId: 'a', q: q(1) }, { lobbyId: 'b', q: q(1) }], holds: [], removes: [] },
      { upserts: [], holds: [{ lobbyId: 'a', matchId: 'm1', ticket: 1 }], removes: [] },
      { upserts: [], holds: [], removes: [{ lobbyId: 'a', wait: { matchId: 'm1', at: '2026-11-26T10:00:01.000Z' } }, { lobbyId: 'b', wait: null }] },
    ]);
  });

  it('ignores events that do not touch the queue', () => {
    expect(ticketWrites([ev('LobbyJoined', { lobbyId: 'a' }), ev('MatchFormed', { matchId: 'm1' })])).toEqual([]);
  });
});
