// The tickets table written a batch at a time (multi-row statements) ends exactly as written one event at a
// time, on real PostgreSQL, for random event sequences (repeats, stale tickets, reservations, matches).
import type { QueueTicket } from '@spawnpoint/domain';
import { readModelsPool } from '@spawnpoint/read-models';
import { Prng } from '../../../test/support/fuzz/prng';
import { createProjectionTestBed, ProjectionTestBed } from '../../../test/support/projections';
import { applyTicketWrites, TicketEvent, ticketWrites } from './ticket-writes';

const t0 = Date.parse('2026-11-26T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const ev = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as TicketEvent;

function randomEvents(seed: number, n: number): TicketEvent[] {
  const rng = new Prng(seed);
  const r = () => rng.next();
  const pick = <T>(xs: readonly T[]) => rng.pick(xs);
  const tickets = new Map<string, number>();
  const out: TicketEvent[] = [];
  for (let i = 0; i < n; i++) {
    const lobbyId = pick(['a', 'b', 'c', 'd', 'e', 'f']);
    const t = tickets.get(lobbyId) ?? 0;
    const kind = r();
    const queue = (ticket: number): QueueTicket => ({
      projectId: 'p1', config: 'arena', mode: pick(['duel', 'squad']), ticket, queuedAt: iso(t0 + i * 1000), region: pick(['eu-west', 'us-east']),
      players: Array.from({ length: 1 + Math.floor(r() * 3) }, (_, k) => ({ id: `${lobbyId}${k}`, state: { mmr: Math.round(r() * 2000) } })),
    });
    if (kind < 0.35) {
      tickets.set(lobbyId, t + 1);
      out.push(ev(pick(['MatchmakingStarted', 'MatchmakingTicketChanged']), { lobbyId, queue: queue(t + 1) }));
    } else if (kind < 0.42) {
      out.push(ev('MatchmakingTicketChanged', { lobbyId, queue: queue(Math.max(0, t - 1)) })); // a stale ticket, heard late
    } else if (kind < 0.62) {
      out.push(ev('LobbyReserved', { lobbyId, matchId: `m${i % 4}`, ticket: r() < 0.8 ? t : t - 1, at: iso(t0 + i * 1000) }));
    } else if (kind < 0.8) {
      out.push(ev('LobbyMatchFound', { lobbyId, matchId: `m${i % 4}`, confirmationDeadline: null, at: iso(t0 + i * 1000 + 500) }));
    } else {
      out.push(ev(pick(['MatchmakingEnded', 'LobbyDeleted', 'GameStarting']), { lobbyId }));
    }
  }
  return out;
}

describe('ticket writes (PostgreSQL)', () => {
  let bed: ProjectionTestBed;
  beforeAll(async () => {
    bed = await createProjectionTestBed('mm_ticketwrites');
  });
  afterAll(async () => {
    await bed.close();
  });

  const tables = async () => {
    const pool = readModelsPool(bed.models);
    const tickets = await pool.query('SELECT * FROM match_tickets ORDER BY lobby_id');
    const waits = await pool.query('SELECT * FROM match_waits ORDER BY lobby_id, match_id');
    return { tickets: tickets.rows, waits: waits.rows };
  };
  const clear = () => readModelsPool(bed.models).query('TRUNCATE match_tickets, match_waits');
  const write = async (events: TicketEvent[]) => {
    const client = await readModelsPool(bed.models).connect();
    try {
      await client.query('BEGIN');
      const waits = await applyTicketWrites(ticketWrites(events), client);
      await client.query('COMMIT');
      return waits;
    } finally {
      client.release();
    }
  };

  it('records a ticket, keeps the newer one, holds it, and turns a match into a wait', async () => {
    await clear();
    const q = (ticket: number, mmr: number): QueueTicket =>
      ({ projectId: 'p1', config: 'arena', mode: 'duel', ticket, queuedAt: iso(t0), region: 'eu-west', players: [{ id: 'ann', state: { mmr } }, { id: 'bo', state: {} }] });
    await write([ev('MatchmakingStarted', { lobbyId: 'a', queue: q(2, 1500) }), ev('MatchmakingTicketChanged', { lobbyId: 'a', queue: q(1, 900) })]);
    expect((await tables()).tickets).toMatchObject([{ lobby_id: 'a', ticket: 2, players: [{ id: 'ann', state: { mmr: 1500 } }, { id: 'bo' }], held_by: null }]);
    await write([ev('LobbyReserved', { lobbyId: 'a', matchId: 'm1', ticket: 2, at: iso(t0) })]);
    expect((await tables()).tickets[0].held_by).toBe('m1');
    const found = ev('LobbyMatchFound', { lobbyId: 'a', matchId: 'm1', confirmationDeadline: null, at: iso(t0 + 4000) });
    // The wait it recorded comes back once (time to match); the same event again records nothing.
    expect(await write([found])).toEqual([{ mode: 'duel', seconds: 4 }]);
    expect(await write([found])).toEqual([]);
    const { tickets, waits } = await tables();
    expect(tickets).toEqual([]);
    expect(waits).toEqual([{ lobby_id: 'a', match_id: 'm1', project_id: 'p1', config: 'arena', mode: 'duel', region: 'eu-west', players: 2, queued_at: new Date(t0), matched_at: new Date(t0 + 4000) }]);
  });

  it('ends a batch as the same events written one at a time would (40 random sequences)', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const events = randomEvents(seed, 60);
      await clear();
      for (const e of events) await write([e]);
      const one = await tables();
      await clear();
      await write(events);
      const batched = await tables();
      expect({ seed, ...batched }).toEqual({ seed, ...one });
      expect(ticketWrites(events).length).toBeLessThan(events.length); // it did batch
    }
  });
});
