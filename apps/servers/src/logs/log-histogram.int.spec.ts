// The log histogram against real PostgreSQL: lines written by the real LogWriter, queried through the bus
// handler (validation included) and checked against a plain GROUP BY date_bin reference on generated
// data, from the per-minute rollup and from the lines.
import { randomUUID } from 'node:crypto';
import { LogLevel } from '@spawnpoint/runtime';
import { LogWriter } from '../log-writer';
import { queryLogHistogram, queryRawHistogram } from './log-queries';
import { checkHistogramQuery, rollupMinutes } from './log-window';
import { at, logsFixture, NOW } from './testing/logs-fixture';

describe('server log histogram in PostgreSQL', () => {
  const f = logsFixture('loghist');
  const { serverWith, histogram } = f;

  describe('histogram', () => {
    it('counts lines per level in epoch-aligned bins, omits empty bins and echoes step and window', async () => {
      const id = await serverWith([
        ['2026-11-21T11:00:05Z', 'info', 'a'], ['2026-11-21T11:00:59.999Z', 'warn', 'b'], ['2026-11-21T11:00:30Z', 'error', 'c'],
        ['2026-11-21T11:00:31Z', 'error', 'd'], ['2026-11-21T11:03:00Z', 'info', 'e'], ['2026-11-21T11:59:59Z', 'warn', 'f'],
      ]);
      expect(await histogram({ serverId: id })).toEqual({
        buckets: [
          { t: '2026-11-21T11:00:00.000Z', info: 1, warn: 1, error: 2 },
          { t: '2026-11-21T11:03:00.000Z', info: 1, warn: 0, error: 0 },
          { t: '2026-11-21T11:59:00.000Z', info: 0, warn: 1, error: 0 },
        ],
        step: 60,
        window: { start: '2026-11-21T11:00:00.000Z', end: '2026-11-21T12:00:00.000Z' },
      });
      const fine = await histogram({ serverId: id, start_time: '2026-11-21T11:00:00Z', end_time: '2026-11-21T11:01:00Z', step: 30 });
      expect(fine.buckets).toEqual([{ t: '2026-11-21T11:00:00.000Z', info: 1, warn: 0, error: 0 }, { t: '2026-11-21T11:00:30.000Z', info: 0, warn: 1, error: 2 }]);
    });

    it('aligns bins to the epoch even when the window is not, counting only lines inside the window', async () => {
      const id = await serverWith([['2026-11-21T11:00:10Z', 'info', 'before start'], ['2026-11-21T11:00:20Z', 'info', 'in'], ['2026-11-21T11:01:10Z', 'error', 'at end']]);
      const h = await histogram({ serverId: id, start_time: '2026-11-21T11:00:15Z', end_time: '2026-11-21T11:01:10Z', step: 60 });
      expect(h).toEqual({ buckets: [{ t: '2026-11-21T11:00:00.000Z', info: 1, warn: 0, error: 0 }], step: 60, window: { start: '2026-11-21T11:00:15.000Z', end: '2026-11-21T11:01:10.000Z' } });
    });

    it('filters by a case-insensitive substring, and an empty window has no bins', async () => {
      const id = await serverWith([['2026-11-21T11:10:00Z', 'warn', 'WARN sample warning: no players yet'], ['2026-11-21T11:10:01Z', 'info', 'INFO up'], ['2026-11-21T11:20:00Z', 'error', 'ERROR 50% loss']]);
      expect((await histogram({ serverId: id, search: 'warning' })).buckets).toEqual([{ t: '2026-11-21T11:10:00.000Z', info: 0, warn: 1, error: 0 }]);
      expect((await histogram({ serverId: id, search: '50%' })).buckets).toEqual([{ t: '2026-11-21T11:20:00.000Z', info: 0, warn: 0, error: 1 }]);
      expect((await histogram({ serverId: id, search: '_' })).buckets).toEqual([]);
      expect(await histogram({ serverId: id, start_time: 'now', end_time: 'now' })).toMatchObject({ buckets: [], window: { start: NOW.toISOString(), end: NOW.toISOString() } });
    });

    it('widens the step for windows that would need too many bins, and says so', async () => {
      const id = await serverWith([['2026-11-21T00:00:07Z', 'info', 'x']]);
      const h = await histogram({ serverId: id, start_time: '-24h', step: 5 });
      expect(h.step).toBe(10);
      expect(h.buckets).toEqual([{ t: '2026-11-21T00:00:00.000Z', info: 1, warn: 0, error: 0 }]);
    });

    it('answers 422 for step 4 or 3601, a 257-character search, start after end or a word for a time', async () => {
      const id = await serverWith([]);
      for (const [q, field] of [[{ step: 4 }, 'step'], [{ step: 3601 }, 'step'], [{ search: 'x'.repeat(257) }, 'search'],
        [{ start_time: '-1h', end_time: '-2h' }, 'start_time'], [{ start_time: 'yesterday' }, 'start_time']] as const) {
        await expect(histogram({ serverId: id, ...q })).rejects.toMatchObject({ code: 'invalid', detail: [expect.objectContaining({ loc: ['query', field] })] });
      }
    });

    /** The reference: a plain GROUP BY date_bin over every line of the window. */
    async function reference(id: string, q: ReturnType<typeof checkHistogramQuery>) {
      const rows = await f.rm.$queryRaw<{ t: Date; info: number; warn: number; error: number }[]>`
        SELECT date_bin(make_interval(secs => ${q.step}::int), ts, timestamptz '1970-01-01T00:00:00Z') AS t,
               count(*) FILTER (WHERE level = 'info')::int AS info, count(*) FILTER (WHERE level = 'warn')::int AS warn,
               count(*) FILTER (WHERE level = 'error')::int AS error
        FROM log_lines
        WHERE server_id = ${id}::uuid AND ts >= ${q.window.start.toISOString()}::timestamptz AND ts < ${q.window.end.toISOString()}::timestamptz
          AND (${q.search}::text IS NULL OR message ILIKE '%' || ${q.search}::text || '%')
        GROUP BY 1 ORDER BY 1`;
      return rows.map((r) => ({ t: r.t.toISOString(), info: r.info, warn: r.warn, error: r.error }));
    }

    /**
     * 20,000 lines scattered over 10:00–12:00 (written out of order through the LogWriter, 1000 a batch, so
     * every batch adds to minutes earlier batches wrote), plus lines exactly on the edges the cases use.
     */
    async function generatedServer(): Promise<string> {
      const id = randomUUID();
      const writer = new LogWriter(f.rm, 60_000, 1000);
      const levels: LogLevel[] = ['info', 'warn', 'error'];
      const line = (ts: Date, i: number) => writer.add('p1', { serverId: id, timestamp: ts, stream: 'stdout', level: levels[(i * 31) % 3], message: `line ${i}${i % 13 === 0 ? ' Needle' : ''}` });
      for (let i = 1; i <= 20_000; i++) line(new Date(Date.parse('2026-11-21T10:00:00Z') + ((i * 7919) % 7_200_000)), i);
      const edges = ['2026-11-21T10:17:03.250Z', '2026-11-21T10:17:03.249Z', '2026-11-21T10:18:00.000Z', '2026-11-21T10:17:59.999Z',
        '2026-11-21T11:02:00.000Z', '2026-11-21T11:01:59.999Z', '2026-11-21T11:02:40.999Z', '2026-11-21T11:02:41.000Z',
        '2026-11-21T10:00:00.000Z', '2026-11-21T11:59:59.999Z', '2026-11-21T10:20:10.000Z', '2026-11-21T10:21:49.999Z'];
      edges.forEach((iso, i) => line(at(iso), i));
      await writer.flush();
      return id;
    }

    it('answers from the per-minute rollup exactly as from the lines, for aligned and unaligned windows and steps', async () => {
      const id = await generatedServer();
      const cases = [
        { start_time: '2026-11-21T10:00:00Z', end_time: '2026-11-21T12:00:00Z', step: 60 },
        { start_time: '2026-11-21T10:17:03.250Z', end_time: '2026-11-21T11:02:41Z', step: 60 },
        { start_time: '2026-11-21T10:17:03.249Z', end_time: '2026-11-21T11:02:40.999Z', step: 60 },
        { start_time: '2026-11-21T10:20:10Z', end_time: '2026-11-21T10:22:10Z', step: 60 },
        { start_time: '2026-11-21T10:07:00Z', end_time: '2026-11-21T11:53:00Z', step: 300 },
        { start_time: '2026-11-21T10:07:30Z', end_time: '2026-11-21T11:53:15.500Z', step: 300 },
        { start_time: '2026-11-21T09:00:00Z', end_time: '2026-11-21T13:00:00Z', step: 3600 },
        { start_time: '2026-11-21T10:00:00.001Z', end_time: '2026-11-21T11:59:59.999Z', step: 3600 },
        { start_time: '2026-11-21T10:29:59.999Z', end_time: '2026-11-21T11:30:00.001Z', step: 3600 },
        { start_time: '2026-11-21T10:17:03.250Z', end_time: '2026-11-21T11:02:41Z', step: 120 },
        { start_time: '2026-11-21T10:17:03.250Z', end_time: '2026-11-21T11:02:41Z', step: 900 },
      ];
      for (const c of cases) {
        const q = checkHistogramQuery(c, NOW);
        expect(rollupMinutes(q)).not.toBeNull();
        const expected = await reference(id, q);
        expect(expected.length).toBeGreaterThan(0);
        const got = await queryLogHistogram(f.rm, id, q);
        expect({ c, buckets: got.buckets }).toEqual({ c, buckets: expected });
        expect(got).toEqual(await queryRawHistogram(f.rm, id, q));
      }
      // The rollup is what is read: every count it holds, doubled, doubles the whole-minute answer.
      await f.rm.$executeRaw`UPDATE log_minutes SET info = 2 * info, warn = 2 * warn, error = 2 * error WHERE server_id = ${id}::uuid`;
      const q = checkHistogramQuery(cases[0], NOW);
      expect((await queryLogHistogram(f.rm, id, q)).buckets).toEqual((await reference(id, q)).map((b) => ({ ...b, info: 2 * b.info, warn: 2 * b.warn, error: 2 * b.error })));
    });

    it('counts every line when the rollup cannot give the exact answer (search, step not whole minutes, no whole minute)', async () => {
      const id = await generatedServer();
      await f.rm.$executeRaw`DELETE FROM log_minutes WHERE server_id = ${id}::uuid`; // not read on these paths
      const cases = [
        { start_time: '2026-11-21T10:17:03.250Z', end_time: '2026-11-21T11:02:41Z', step: 7 },
        { start_time: '2026-11-21T10:00:00Z', end_time: '2026-11-21T12:00:00Z', step: 90 },
        { start_time: '2026-11-21T10:30:00Z', end_time: '2026-11-21T10:45:00Z', step: 5, search: 'NEEDLE' },
        { start_time: '2026-11-21T10:00:00Z', end_time: '2026-11-21T12:00:00Z', step: 60, search: 'needle' },
        { start_time: '2026-11-21T10:20:10Z', end_time: '2026-11-21T10:20:50Z', step: 60 },
        { start_time: '2026-11-21T10:20:10Z', end_time: '2026-11-21T10:21:00Z', step: 60 },
        { start_time: '2026-11-21T10:20:10Z', end_time: '2026-11-21T10:21:50Z', step: 60 },
      ];
      for (const c of cases) {
        const q = checkHistogramQuery(c, NOW);
        expect(rollupMinutes(q)).toBeNull();
        const expected = await reference(id, q);
        expect(expected.length).toBeGreaterThan(0);
        expect((await queryLogHistogram(f.rm, id, q)).buckets).toEqual(expected);
      }
    });

    it('keeps the rollup equal to the counts of log_lines across batches, servers and levels', async () => {
      const a = randomUUID();
      const b = randomUUID();
      const writer = new LogWriter(f.rm, 60_000, 7);
      const levels: LogLevel[] = ['info', 'warn', 'error', 'info', 'info'];
      for (let i = 0; i < 200; i++) {
        // The same few minutes again and again, both servers interleaved: most batches add to existing rows.
        const ts = new Date(Date.parse('2026-11-21T10:58:00Z') + ((i * 10_007) % 240_000));
        writer.add('p1', { serverId: i % 3 === 0 ? b : a, timestamp: ts, stream: 'stdout', level: levels[i % 5], message: `m${i}` });
      }
      await writer.flush();
      writer.add('p1', { serverId: a, timestamp: at('2026-11-21T10:59:59.999Z'), stream: 'stderr', level: 'error', message: 'late' });
      await writer.flush();
      const [lines, minutes] = await Promise.all([
        f.rm.$queryRaw<unknown[]>`
          SELECT server_id::text AS server, date_bin(interval '1 minute', ts, timestamptz '1970-01-01T00:00:00Z') AS minute,
                 count(*) FILTER (WHERE level = 'info')::int AS info, count(*) FILTER (WHERE level = 'warn')::int AS warn,
                 count(*) FILTER (WHERE level = 'error')::int AS error
          FROM log_lines WHERE server_id IN (${a}::uuid, ${b}::uuid) GROUP BY 1, 2 ORDER BY 1, 2`,
        f.rm.$queryRaw<unknown[]>`
          SELECT server_id::text AS server, minute, info, warn, error
          FROM log_minutes WHERE server_id IN (${a}::uuid, ${b}::uuid) ORDER BY 1, 2`,
      ]);
      expect(lines).toHaveLength(8); // 2 servers × 4 minutes
      expect(minutes).toEqual(lines);
    });
  });
});
