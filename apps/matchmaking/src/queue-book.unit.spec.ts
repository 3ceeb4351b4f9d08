// The queues in memory: what a tick may propose, as tickets come, change and go, and as matches end.
import { QueueTicket, resolveMode } from '@spawnpoint/domain';
import { QueueBook } from './queue-book';

const t0 = '2026-11-24T10:00:00.000Z';
const duel = resolveMode('duel', { teams: 2, playersPerTeam: 1 });
const ids = (lobbies: { lobbyId: string }[]) => `m:${lobbies.map((l) => l.lobbyId).sort().join('+')}`;
const ticket = (player: string, n = 1, more: Partial<QueueTicket> = {}): QueueTicket =>
  ({ projectId: 'p1', config: 'arena', mode: 'duel', ticket: n, queuedAt: t0, region: 'eu-west', players: [{ id: player, state: {} }], ...more });
const step = (book: QueueBook, mode = duel) => [...book.all()].flatMap((q) => book.step(q, mode, t0, ids)).map((p) => p.matchId);

describe('QueueBook', () => {
  it('proposes a lobby once; the match over, its lobbies still queued are matched again', () => {
    const book = new QueueBook();
    book.put('a', ticket('ann'));
    book.put('b', ticket('bob'));
    expect(step(book)).toEqual(['m:a+b']);
    expect(step(book)).toEqual([]);
    expect(book.ticketOf('a')?.proposedFor).toBe('m:a+b');
    book.matchOver('m:a+b');
    expect(step(book)).toEqual(['m:a+b']);
  });

  it('a reserved lobby leaves the queue; a new ticket of a proposed lobby is queued again; the same ticket heard twice is not', () => {
    const book = new QueueBook();
    for (const [id, who] of [['a', 'ann'], ['b', 'bob'], ['c', 'cid']]) book.put(id, ticket(who));
    expect(step(book)).toEqual(['m:a+b']);
    book.put('a', ticket('ann')); // the same event again
    expect(step(book)).toEqual([]);
    book.remove('b'); // reserved
    book.put('a', ticket('ann', 2)); // a's ticket changed: its reservation cannot hold
    expect(step(book)).toEqual(['m:a+c']);
    expect(book.lobbyOf('p1', 'arena', 'bob')).toBeNull();
    expect(book.lobbyOf('p1', 'arena', 'ann')).toBe('a');
  });

  it('an index built while a lobby was proposed takes it back when that match is over (a mode change rebuilds it)', () => {
    const book = new QueueBook();
    book.put('a', ticket('ann'));
    book.put('b', ticket('bob'));
    expect(step(book)).toEqual(['m:a+b']);
    const trio = resolveMode('duel', { teams: 3, playersPerTeam: 1 });
    book.put('c', ticket('cid'));
    expect(step(book, trio)).toEqual([]);
    book.matchOver('m:a+b');
    expect(step(book, trio)).toEqual(['m:a+b+c']);
  });
});

describe('QueueBook: events heard twice', () => {
  it('the same ticket again leaves a proposed lobby proposed; its match over, it is matched again', () => {
    const book = new QueueBook();
    book.put('a', ticket('ann'));
    book.put('b', ticket('bob'));
    expect(step(book)).toEqual(['m:a+b']);
    book.put('a', ticket('ann'));
    book.put('b', ticket('bob'));
    expect(book.ticketOf('a')?.proposedFor).toBe('m:a+b');
    expect(step(book)).toEqual([]);
    book.matchOver('m:a+b');
    expect(step(book)).toEqual(['m:a+b']);
  });
});
