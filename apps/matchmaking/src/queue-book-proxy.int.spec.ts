// The queue worker through its proxy, a real worker thread (the built queue-book.worker.js): the same
// answers as a QueueBook fed the same deltas, and a worker that dies is logged, replaced and reloaded from
// the tickets table (PostgreSQL).
import { MatchmakingMode, QueueTicket, resolveMode } from '@spawnpoint/domain';
import { readModelsPool } from '@spawnpoint/read-models';
import { captureLogs } from '../../../libs/logging/src/testing';
import { eventually } from '../../../test/support/http';
import { createProjectionTestBed, ProjectionTestBed } from '../../../test/support/projections';
import { BOOK_DELTAS, BOOK_QUERIES } from './book-queries';
import { matchIdOf } from './match-id';
import { QueueBook } from './queue-book';
import { QueueBookProxy } from './queue-book-proxy';
import { ticketRows } from './tickets.projection';

const t0 = Date.parse('2026-11-24T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const duel = resolveMode('duel', { teams: 2, playersPerTeam: 1, rules: [{ type: 'difference', field: 'mmr', maxDifference: 50, expandEvery: 5, expandBy: 50 }] });
const trio = resolveMode('duel', { teams: 3, playersPerTeam: 1 });
const queueOf = { projectId: 'p1', config: 'arena', mode: 'duel' };
const ticket = (player: string, mmr: number, n = 1, queuedAt = t0): QueueTicket =>
  ({ ...queueOf, ticket: n, queuedAt: iso(queuedAt), region: 'eu-west', players: [{ id: player, state: { mmr } }] });

function rng(seed: number) {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/** The main thread's copy: a QueueBook fed the same deltas and asked the same questions, in this thread. */
function local() {
  const book = new QueueBook();
  return {
    book,
    send: <K extends keyof typeof BOOK_DELTAS>(k: K, ...a: unknown[]) => (BOOK_DELTAS[k] as (b: QueueBook, ...x: unknown[]) => void)(book, ...a),
    ask: <K extends keyof typeof BOOK_QUERIES>(k: K, ...a: unknown[]) => (BOOK_QUERIES[k] as (b: QueueBook, ...x: unknown[]) => unknown)(book, ...a),
  };
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

describe('QueueBookProxy (a real worker thread)', () => {
  let proxy: QueueBookProxy;
  beforeEach(() => {
    proxy = new QueueBookProxy();
  });
  afterEach(async () => {
    await proxy.close();
  });

  it('applies deltas in order and answers as a QueueBook fed the same deltas (steps, fills, explain, figures)', async () => {
    const same = local();
    const r = rng(7);
    const both = (k: keyof typeof BOOK_DELTAS, ...a: unknown[]) => {
      (proxy as unknown as Record<string, (...x: unknown[]) => void>)[k](...a);
      same.send(k, ...a);
    };
    const step = async (mode: MatchmakingMode, now: string) => {
      const got = await all(proxy.step(queueOf, mode, now)); // read a page at a time
      const queue = same.book.queue(queueOf);
      expect(got).toEqual(queue ? same.book.step(queue, mode, now, matchIdOf) : []);
      return got;
    };
    both('put', 'gone', ticket('gus', 1000));
    both('remove', 'gone');
    for (let i = 0; i < 1200; i++) both('put', `l${i}`, ticket(`p${i}`, Math.round(r() * 3000), 1, t0 - Math.floor(r() * 20_000)));
    expect(await proxy.ticketOf('gone')).toBeNull();
    const first = await step(duel, iso(t0));
    expect(first.length).toBeGreaterThan(300); // more than a page
    // Matches over, lobbies reserved, tickets changed, a fill held: whatever the order, the same answers.
    for (const [k, p] of first.entries()) {
      if (k % 3 === 0) both('matchOver', p.matchId);
      else if (k % 3 === 1) for (const l of p.lobbies) both('remove', l.lobbyId);
      else both('put', p.lobbies[0].lobbyId, ticket(`p${p.lobbies[0].lobbyId.slice(1)}`, 1500, 2, t0));
    }
    both('hold', 'fill:m1', 'l1199');
    await step(duel, iso(t0 + 10_000));
    await step(trio, iso(t0 + 20_000)); // a mode change rebuilds the index
    both('matchOver', 'fill:m1');
    await step(trio, iso(t0 + 30_000));
    await step(duel, iso(t0 + 60_000));

    const queued = same.ask('queues') as { projectId: string }[];
    expect(await proxy.queues()).toEqual(queued);
    expect(await proxy.counts()).toEqual(same.ask('counts'));
    expect(await proxy.size()).toBe(same.book.size);
    for (let i = 0; i < 1200; i += 7) {
      expect(await proxy.ticketOf(`l${i}`)).toEqual(same.ask('ticketOf', `l${i}`));
      expect(await proxy.lobbyOf('p1', 'arena', `p${i}`)).toBe(same.ask('lobbyOf', 'p1', 'arena', `p${i}`));
    }
    // Explain from the queue's index (built for duel by the last step), and from a scan for another mode.
    const left = [...same.book.queue(queueOf)!.tickets.keys()];
    expect(left.length).toBeGreaterThan(0);
    for (const id of left.slice(0, 20)) {
      for (const mode of [duel, trio]) expect(await proxy.explain(id, mode, iso(t0 + 61_000))).toEqual(same.ask('explain', id, mode, iso(t0 + 61_000)));
    }
    const explained = await proxy.explain(left[0], duel, iso(t0 + 61_000));
    expect(explained?.why.rating).toEqual(expect.any(Number));

    // A fill picks the oldest free lobby that fits and holds it (it is not stepped again until released).
    both('put', 'late', ticket('lia', 1490, 1, t0 + 60_500));
    const game = { match: { lobbies: [{ lobbyId: 'x', rating: 1500 }], region: 'eu-west' }, startedAt: iso(t0), initial: [1, 1], override: null, free: [1, 0] } as never;
    const pick = await proxy.fill(queueOf, game, duel, t0 + 61_000, 'fill:m2');
    expect(pick).toEqual(same.ask('fill', queueOf, game, duel, t0 + 61_000, 'fill:m2'));
    expect(pick?.lobby.lobbyId).toEqual(expect.any(String));
    expect((await proxy.ticketOf(pick!.lobby.lobbyId))?.proposedFor).toBe('fill:m2');
    await step(duel, iso(t0 + 61_000));
  });

  it('answers a question after every delta sent before it', async () => {
    for (let i = 0; i < 2000; i++) proxy.put(`l${i}`, ticket(`p${i}`, i * 10));
    proxy.remove('l5');
    expect(await proxy.size()).toBe(1999);
    proxy.clear();
    expect(await proxy.queues()).toEqual([]);
  });

  it('refuses questions once closed', async () => {
    await proxy.close();
    proxy.put('a', ticket('ann', 1000)); // dropped: the service is stopping
    await expect(proxy.size()).rejects.toThrow(/stopped/);
  });
});

describe('QueueBookProxy: a worker that dies', () => {
  let bed: ProjectionTestBed;
  let proxy: QueueBookProxy;
  beforeAll(async () => {
    bed = await createProjectionTestBed('mm_worker');
  });
  afterAll(async () => {
    await proxy?.close();
    await bed.close();
  });

  it('is logged, replaced and reloaded from the tickets table; deltas heard meanwhile follow the load', async () => {
    const pool = readModelsPool(bed.models);
    const insert = (id: string, q: QueueTicket, heldBy: string | null = null) => pool.query(
      'INSERT INTO match_tickets (lobby_id, project_id, config, mode, region, ticket, queued_at, players, held_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [id, q.projectId, q.config, q.mode, q.region, q.ticket, q.queuedAt, JSON.stringify(q.players), heldBy],
    );
    await insert('a', ticket('ann', 1000));
    await insert('b', ticket('bob', 1010));
    await insert('r', ticket('rex', 1005), 'm-reserved'); // reserved: not loaded
    proxy = new QueueBookProxy();
    await proxy.loadFrom(() => ticketRows(pool));
    expect(await proxy.size()).toBe(2);

    // Known to the worker only (the table has not seen it): lost with the worker, as with the process.
    proxy.put('mem', ticket('meg', 3000));
    await insert('c', ticket('cid', 1020)); // committed while the worker runs
    const logs = captureLogs();
    try {
      const asked = proxy.size();
      proxy.put('bad', { ...ticket('bad', 0), players: undefined } as never); // throws in the worker: it dies
      await expect(asked).resolves.toBe(3); // asked before the fatal delta: answered
      // Asked of the dying worker: refused when it exits, never left hanging (or, asked of the new one, answered).
      const during = await proxy.size().catch((err: Error) => err.message);
      expect(during === 3 || /exited/.test(String(during))).toBe(true);
      await eventually(async () => proxy.restarts, (n) => n === 1, 10_000, 'a new worker');
      proxy.put('d', ticket('dan', 1030)); // heard after the death, before the reload: it follows the load
      expect(await proxy.size()).toBe(4);
      expect(await proxy.ticketOf('mem')).toBeNull();
      expect((await proxy.ticketOf('c'))?.ticket).toMatchObject({ lobbyId: 'c', ticket: 1, players: [{ id: 'cid', state: { mmr: 1020 } }] });
      expect(await proxy.ticketOf('r')).toBeNull();
      expect((await all(proxy.step(queueOf, duel, iso(t0)))).map((p) => p.lobbies.map((l) => l.lobbyId).sort())).toEqual([['a', 'b'], ['c', 'd']]);
      expect(logs.messages('error').join('\n')).toMatch(/queue worker failed: TypeError[\s\S]*queue worker exited \(code 1\)/);
      expect(logs.messages('info')).toContain('matchmaking: the new queue worker holds the 3 queued tickets');

      // Dead again soon after: the next one waits a moment (a crash loop does not spin), then loads the table.
      proxy.put('bad', { ...ticket('bad', 0), players: undefined } as never);
      await eventually(async () => proxy.restarts, (n) => n === 2, 10_000, 'a second new worker');
      const since = Date.now();
      expect(await proxy.size()).toBe(3); // a, b, c: d was heard, never stored
      expect(Date.now() - since).toBeGreaterThanOrEqual(900);
      expect(logs.messages('error').join('\n')).toMatch(/a new one starts in 1000 ms/);
    } finally {
      logs.restore();
    }
  });
});
