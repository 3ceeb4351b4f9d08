import { parseTimeParam } from './log-time';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const iso = (v: string) => parseTimeParam(v, NOW)?.toISOString() ?? null;

describe('parseTimeParam', () => {
  it('reads times relative to now in seconds, minutes, hours and days, and now itself', () => {
    expect(iso('-30s')).toBe('2026-11-21T11:59:30.000Z');
    expect(iso('-15m')).toBe('2026-11-21T11:45:00.000Z');
    expect(iso('-1h')).toBe('2026-11-21T11:00:00.000Z');
    expect(iso('-2d')).toBe('2026-11-19T12:00:00.000Z');
    expect(iso('-0m')).toBe(NOW.toISOString());
    expect(iso('now')).toBe(NOW.toISOString());
    expect(iso('NOW')).toBe(NOW.toISOString());
  });

  it('reads ISO 8601 dates and date-times, with or without fraction and offset (none = UTC)', () => {
    expect(iso('2026-11-21T10:00:00Z')).toBe('2026-11-21T10:00:00.000Z');
    expect(iso('2026-11-21T10:00:00.123456Z')).toBe('2026-11-21T10:00:00.123Z');
    expect(iso('2026-11-21T10:00:00.5Z')).toBe('2026-11-21T10:00:00.500Z');
    expect(iso('2026-11-21T10:00:00+02:00')).toBe('2026-11-21T08:00:00.000Z');
    expect(iso('2026-11-21T10:00:00-0130')).toBe('2026-11-21T11:30:00.000Z');
    expect(iso('2026-11-21T10:00')).toBe('2026-11-21T10:00:00.000Z');
    expect(iso('2026-11-21 10:00:00')).toBe('2026-11-21T10:00:00.000Z');
    expect(iso('2026-11-21')).toBe('2026-11-21T00:00:00.000Z');
    expect(iso('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
  });

  it('reads a + that arrived as a space (left unencoded in the URL) as +', () => {
    expect(iso('2026-11-21T10:00:00 02:00')).toBe('2026-11-21T08:00:00.000Z');
  });

  it('refuses anything else: words, other units, positive offsets, impossible dates', () => {
    for (const bad of ['yesterday', '', '-1w', '-1', '1h', '+1h', '-1.5h', '-h', 'now-1h', '2026-13-01', '2026-02-29', '2023-02-29T00:00:00Z',
      '2026-11-31', '2026-11-21T24:00:00Z', '2026-11-21T10:60:00Z', '2026-11-21T10:00:60Z', '2026-11-21T10:00:00+24:00', '21/11/2026', '1763726400', '-9999999999d']) {
      expect([bad, parseTimeParam(bad, NOW)]).toEqual([bad, null]);
    }
  });

  it('does not depend on the clock: the same text against another now moves with it', () => {
    expect(parseTimeParam('-1h', new Date('2000-01-01T00:00:00Z'))!.toISOString()).toBe('1999-12-31T23:00:00.000Z');
  });
});
