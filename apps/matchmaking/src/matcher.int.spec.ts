// The matcher's round with a real queue worker and the real lock (PostgreSQL): the proposals of one round
// are recorded side by side (one after the other, a round of 30 took 300 ms under load and every ticket
// arriving meanwhile waited for it), and a proposal that could not be recorded frees its lobbies for the
// next round, under the same match id.
import { LobbyConfig, MatchProposal, QueueTicket, resolveMode } from '@spawnpoint/domain';
import { Pool } from 'pg';
import { captureLogs } from '../../../libs/logging/src/testing';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { eventually } from '../../../test/support/http';
import { Matcher } from './matcher';
import { OpenMatches } from './open-matches';
import { QueueBookProxy } from './queue-book-proxy';

const t0 = Date.parse('2026-11-27T10:00:00.000Z');
const duel = resolveMode('duel', { teams: 2, playersPerTeam: 1 });
const config = { name: 'arena', modes: { duel } } as unknown as LobbyConfig;
const ticket = (player: string): QueueTicket =>
  ({ projectId: 'p1', config: 'arena', mode: 'duel', ticket: 1, queuedAt: new Date(t0).toISOString(), region: 'eu-west', players: [{ id: player, state: {} }] });

describe('Matcher (a real queue worker, the lock on PostgreSQL)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let book: QueueBookProxy;
  let matcher: Matcher | null = null;
  /** Lets held proposals finish, so a failed test still stops its matcher (and its worker) at once. */
  let release: () => void = () => undefined;

  beforeAll(async () => {
    db = await createTestDatabase('matcher');
    pool = new Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });
  beforeEach(() => {
    book = new QueueBookProxy();
  });
  afterEach(async () => {
    release();
    await matcher?.stop();
    matcher = null;
    await book.close();
  });

  it('records the proposals of a round side by side; one not recorded frees its lobbies for the next round', async () => {
    for (let i = 0; i < 6; i++) book.put(`l${i}`, ticket(`p${i}`));
    const started: MatchProposal[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    release = open;
    let failOnce: string | null = null;
    matcher = new Matcher({
      book,
      open: new OpenMatches(),
      pool,
      clock: () => new Date(t0),
      config: async () => config,
      propose: async (proposal) => {
        started.push(proposal);
        await gate;
        if (failOnce === null) {
          failOnce = proposal.matchId;
          throw new Error('store unavailable');
        }
        return { over: false };
      },
      proposeFill: async () => undefined,
    }, 60_000);
    const logs = captureLogs();
    try {
      const round = matcher.tick();
      // All three matches of the queue are being recorded before any of them is done.
      await eventually(async () => started.length, (n) => n === 3, 10_000, 'three proposals in flight');
      expect(matcher.proposals).toBe(0);
      open();
      await round;
      expect(matcher.proposals).toBe(2);
      const lobbies = started.flatMap((p) => p.lobbies.map((l) => l.lobbyId)).sort();
      expect(lobbies).toEqual(['l0', 'l1', 'l2', 'l3', 'l4', 'l5']); // no lobby in two matches
      expect(logs.messages('error').join('\n')).toContain(`could not propose match ${failOnce}`);

      // The next round proposes the failed match again (its lobbies were freed), and nothing else.
      await matcher.tick();
      expect(started).toHaveLength(4);
      expect(started[3].matchId).toBe(failOnce);
      expect(matcher.proposals).toBe(3);
      await matcher.tick();
      expect(started).toHaveLength(4);
    } finally {
      logs.restore();
    }
  });
});
