import { decodeTimeCursor, encodeTimeCursor } from './time-cursor';

const BIGINT_ID = /^[1-9][0-9]{0,18}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('time cursor', () => {
  it('round-trips (time, id) through an opaque URL-safe token', () => {
    const c = { at: new Date('2026-11-21T10:00:00.123Z'), id: '9007199254740993' };
    const token = encodeTimeCursor(c);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeTimeCursor(token, BIGINT_ID)).toEqual(c);
    const s = { at: new Date('2026-11-21T10:00:00.000Z'), id: '1a2630b5-2543-4f1c-8c35-e5b127229f29' };
    expect(decodeTimeCursor(encodeTimeCursor(s), UUID)).toEqual(s);
  });

  it('refuses tokens it did not issue', () => {
    for (const bad of ['garbage', '', enc(['2026-11-21T10:00:00.000Z']), enc(['not a time', '1']), enc(['2026-11-21T10:00:00.000Z', 1]),
      enc(['2026-11-21T10:00:00.000Z', '-1']), enc(['2026-11-21T10:00:00.000Z', '0']), enc(['2026-11-21T10:00:00Z', '1']), enc({ ts: 1 })]) {
      expect([bad, decodeTimeCursor(bad, BIGINT_ID)]).toEqual([bad, null]);
    }
  });

  it('refuses an id of the wrong kind, so it never reaches a typed column', () => {
    expect(decodeTimeCursor(enc(['2026-11-21T10:00:00.000Z', 'not-a-uuid']), UUID)).toBeNull();
    expect(decodeTimeCursor(enc(['2026-11-21T10:00:00.000Z', '42']), UUID)).toBeNull();
  });
});
