import { decodeLogCursor, encodeLogCursor } from './log-cursor';

describe('log cursor', () => {
  it('round-trips (ts, id) through an opaque URL-safe token', () => {
    const c = { ts: new Date('2026-11-21T10:00:00.123Z'), id: '9007199254740993' };
    const token = encodeLogCursor(c);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeLogCursor(token)).toEqual(c);
  });

  it('refuses tokens it did not issue', () => {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of ['garbage', '', enc(['2026-11-21T10:00:00.000Z']), enc(['not a time', '1']), enc(['2026-11-21T10:00:00.000Z', 1]),
      enc(['2026-11-21T10:00:00.000Z', '-1']), enc(['2026-11-21T10:00:00.000Z', '0']), enc(['2026-11-21T10:00:00Z', '1']), enc({ ts: 1 })]) {
      expect([bad, decodeLogCursor(bad)]).toEqual([bad, null]);
    }
  });
});
