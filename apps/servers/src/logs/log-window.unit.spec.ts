import { DomainError } from '@spawnpoint/domain';
import { encodeTimeCursor } from '@spawnpoint/platform';
import { alignDown, checkHistogramQuery, checkLogsQuery, histogramBins, MAX_BINS, rollupMinutes, widenStep } from './log-window';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const at = (iso: string) => new Date(iso);

/** The 422 detail a call throws (fails the test when it does not throw one). */
function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('invalid');
    return (err as DomainError).detail as { loc: string[]; msg: string; type: string }[];
  }
  throw new Error('expected a 422');
}

describe('checkHistogramQuery', () => {
  it('defaults to the hour before now at step 60 with no search', () => {
    expect(checkHistogramQuery({}, NOW)).toEqual({ window: { start: at('2026-11-21T11:00:00Z'), end: NOW }, step: 60, search: null });
  });

  it('defaults start to an hour before a given end, and end to now after a given start', () => {
    expect(checkHistogramQuery({ end_time: '-1h' }, NOW).window).toEqual({ start: at('2026-11-21T10:00:00Z'), end: at('2026-11-21T11:00:00Z') });
    expect(checkHistogramQuery({ start_time: '-5m' }, NOW).window).toEqual({ start: at('2026-11-21T11:55:00Z'), end: NOW });
  });

  it('accepts steps 5 and 3600, an empty window and a search of 256 characters', () => {
    expect(checkHistogramQuery({ step: 5 }, NOW).step).toBe(5);
    expect(checkHistogramQuery({ step: 3600 }, NOW).step).toBe(3600);
    expect(checkHistogramQuery({ start_time: 'now', end_time: 'now' }, NOW).window.start).toEqual(NOW);
    expect(checkHistogramQuery({ search: 'x'.repeat(256) }, NOW).search).toHaveLength(256);
    expect(checkHistogramQuery({ search: '' }, NOW).search).toBeNull();
  });

  it('reports a step outside 5-3600 or not an integer, and a search over 256 characters, on their query field', () => {
    expect(issuesOf(() => checkHistogramQuery({ step: 4 }, NOW))).toEqual([{ loc: ['query', 'step'], msg: 'must be at least 5', type: 'greater_than_equal' }]);
    expect(issuesOf(() => checkHistogramQuery({ step: 3601 }, NOW))).toEqual([{ loc: ['query', 'step'], msg: 'must be at most 3600', type: 'less_than_equal' }]);
    expect(issuesOf(() => checkHistogramQuery({ step: 7.5 }, NOW))[0]).toMatchObject({ loc: ['query', 'step'], type: 'int_type' });
    expect(issuesOf(() => checkHistogramQuery({ step: '60' as unknown as number }, NOW))[0]).toMatchObject({ loc: ['query', 'step'], type: 'int_type' });
    expect(issuesOf(() => checkHistogramQuery({ search: 'x'.repeat(257) }, NOW))).toEqual([
      { loc: ['query', 'search'], msg: 'must be at most 256 characters', type: 'string_too_long' },
    ]);
  });

  it('reports bad times, start after end and windows over 31 days', () => {
    expect(issuesOf(() => checkHistogramQuery({ start_time: 'yesterday' }, NOW))).toEqual([
      { loc: ['query', 'start_time'], msg: expect.stringMatching(/ISO 8601.*-15m/), type: 'value_error' },
    ]);
    expect(issuesOf(() => checkHistogramQuery({ end_time: 'soon' }, NOW))).toEqual([expect.objectContaining({ loc: ['query', 'end_time'] })]);
    expect(issuesOf(() => checkHistogramQuery({ start_time: '-1h', end_time: '-2h' }, NOW))).toEqual([
      { loc: ['query', 'start_time'], msg: 'start_time must not be after end_time', type: 'value_error' },
    ]);
    expect(issuesOf(() => checkHistogramQuery({ start_time: '-32d' }, NOW))).toEqual([
      { loc: ['query', 'start_time'], msg: expect.stringContaining('31 days'), type: 'value_error' },
    ]);
    expect(checkHistogramQuery({ start_time: '-31d' }, NOW).window.start).toEqual(at('2026-10-21T12:00:00Z'));
  });

  it('reports every bad value at once', () => {
    const issues = issuesOf(() => checkHistogramQuery({ start_time: 'yesterday', step: 4, search: 'x'.repeat(300) }, NOW));
    expect(issues.map((i) => i.loc[1])).toEqual(['start_time', 'step', 'search']);
  });

  it('widens the step when the window would need more than MAX_BINS bins', () => {
    expect(checkHistogramQuery({ start_time: '-24h', step: 5 }, NOW).step).toBe(10);
    expect(checkHistogramQuery({ start_time: '-31d', step: 5 }, NOW).step).toBe(300);
    expect(checkHistogramQuery({ start_time: '-24h', step: 60 }, NOW).step).toBe(60);
  });
});

describe('checkLogsQuery', () => {
  it('defaults to the last 24 hours, 200 lines, no search, from the start', () => {
    expect(checkLogsQuery({}, NOW)).toEqual({ window: { start: at('2026-11-20T12:00:00Z'), end: NOW }, limit: 200, search: null, after: null });
  });

  it('takes limit 1-1000, a search and a next_token it issued', () => {
    const token = encodeTimeCursor({ at: at('2026-11-21T11:00:00Z'), id: '42' });
    expect(checkLogsQuery({ limit: 1, search: 'Warn', next_token: token }, NOW)).toMatchObject({ limit: 1, search: 'Warn', after: { at: at('2026-11-21T11:00:00Z'), id: '42' } });
    expect(checkLogsQuery({ limit: 1000 }, NOW).limit).toBe(1000);
    expect(checkLogsQuery({ next_token: '' }, NOW).after).toBeNull();
  });

  it('reports a bad limit, next_token, search and time together', () => {
    const issues = issuesOf(() => checkLogsQuery({ limit: 0, next_token: 'garbage', search: 'x'.repeat(257), end_time: '-1x' }, NOW));
    expect(issues).toEqual([
      expect.objectContaining({ loc: ['query', 'end_time'], type: 'value_error' }),
      { loc: ['query', 'limit'], msg: 'must be at least 1', type: 'greater_than_equal' },
      expect.objectContaining({ loc: ['query', 'search'], type: 'string_too_long' }),
      { loc: ['query', 'next_token'], msg: 'invalid pagination token', type: 'value_error' },
    ]);
    expect(issuesOf(() => checkLogsQuery({ limit: 1001 }, NOW))[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' });
  });
});

describe('histogram bins', () => {
  it('aligns to multiples of the step since the epoch, before 1970 too', () => {
    expect(alignDown(at('2026-11-21T10:07:42.500Z'), 60)).toEqual(at('2026-11-21T10:07:00Z'));
    expect(alignDown(at('2026-11-21T10:07:42.500Z'), 3600)).toEqual(at('2026-11-21T10:00:00Z'));
    expect(alignDown(at('1970-01-01T00:00:07Z'), 5)).toEqual(at('1970-01-01T00:00:05Z'));
    expect(alignDown(at('1969-12-31T23:59:58Z'), 5)).toEqual(at('1969-12-31T23:59:55Z'));
    // 7 s bins are aligned to the epoch, not to the minute: 1795255620 s = 7 × 256465088 + 4.
    expect(alignDown(at('2026-11-21T10:07:00Z'), 7)).toEqual(at('2026-11-21T10:06:56Z'));
  });

  it('counts the bins a half-open window touches; an empty window has none', () => {
    expect(histogramBins({ start: at('2026-11-21T10:00:30Z'), end: at('2026-11-21T10:03:00Z') }, 60)).toEqual({
      first: at('2026-11-21T10:00:00Z'), last: at('2026-11-21T10:02:00Z'), count: 3,
    });
    expect(histogramBins({ start: at('2026-11-21T10:00:00Z'), end: at('2026-11-21T10:00:00.001Z') }, 60)!.count).toBe(1);
    expect(histogramBins({ start: NOW, end: NOW }, 60)).toBeNull();
  });

  it('keeps a step that fits and otherwise picks the narrowest wider one within MAX_BINS', () => {
    const day = { start: at('2026-11-20T12:00:00Z'), end: NOW };
    expect(widenStep(day, 60)).toBe(60);
    expect(widenStep(day, 7)).toBe(10);
    expect(histogramBins(day, widenStep(day, 5))!.count).toBeLessThanOrEqual(MAX_BINS);
  });
});

describe('rollupMinutes', () => {
  const q = (start: string, end: string, step = 60, search: string | null = null) => ({ window: { start: at(start), end: at(end) }, step, search });

  it('is the whole minutes inside the window for a step of whole minutes and no search', () => {
    expect(rollupMinutes(q('2026-11-21T10:00:00Z', '2026-11-21T11:00:00Z'))).toEqual({ start: at('2026-11-21T10:00:00Z'), end: at('2026-11-21T11:00:00Z') });
    expect(rollupMinutes(q('2026-11-21T10:00:00.001Z', '2026-11-21T10:59:59.999Z', 3600))).toEqual({ start: at('2026-11-21T10:01:00Z'), end: at('2026-11-21T10:59:00Z') });
    expect(rollupMinutes(q('2026-11-21T10:00:30Z', '2026-11-21T10:02:00Z', 300))).toEqual({ start: at('2026-11-21T10:01:00Z'), end: at('2026-11-21T10:02:00Z') });
  });

  it('is null with a search, a step that is not whole minutes, or no whole minute inside the window', () => {
    expect(rollupMinutes(q('2026-11-21T10:00:00Z', '2026-11-21T11:00:00Z', 60, 'x'))).toBeNull();
    expect(rollupMinutes(q('2026-11-21T10:00:00Z', '2026-11-21T11:00:00Z', 90))).toBeNull();
    expect(rollupMinutes(q('2026-11-21T10:00:00Z', '2026-11-21T11:00:00Z', 30))).toBeNull();
    expect(rollupMinutes(q('2026-11-21T10:00:10Z', '2026-11-21T10:01:50Z'))).toBeNull();
    expect(rollupMinutes(q('2026-11-21T10:00:00Z', '2026-11-21T10:00:00Z'))).toBeNull();
  });
});
