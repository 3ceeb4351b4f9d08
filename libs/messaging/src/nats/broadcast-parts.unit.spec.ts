// Reassembly of a broadcast sent in parts (ADR-0019): order does not matter, a lost part frees its bytes
// after the timeout, and the bytes being reassembled are bounded.
import { captureLogs, type CapturedLogs } from '../../../logging/src/testing';
import { sleep } from '../testing/wait';
import { BroadcastAssembler, splitBroadcast } from './broadcast-parts';

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251);

describe('broadcast parts', () => {
  let logs: CapturedLogs;
  beforeEach(() => (logs = captureLogs()));
  afterEach(() => logs.restore());

  it('splits into parts of at most partBytes carrying the extra headers, and puts them together in any order', () => {
    const data = bytes(10_000);
    const parts = splitBroadcast(data, 3000, { traceparent: 't-1' });
    expect(parts.map((p) => p.data.length)).toEqual([3000, 3000, 3000, 1000]);
    expect(parts.every((p) => p.headers.get('traceparent') === 't-1')).toBe(true);
    const a = new BroadcastAssembler('s', 1 << 20, 1000);
    const order = [2, 0, 3, 1];
    const results = order.map((i) => a.add(parts[i].data, parts[i].headers));
    expect(results.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(Buffer.from(results[3]!).equals(Buffer.from(data))).toBe(true);
    // a message that is not in parts passes as is
    const plain = bytes(5);
    expect(a.add(plain, undefined)).toBe(plain);
    a.stop();
  });

  it('drops a message whose parts did not all come within the timeout, which frees its share of the bound', async () => {
    const a = new BroadcastAssembler('s', 12_000, 100);
    const first = splitBroadcast(bytes(10_000, 1), 4000, {});
    a.add(first[0].data, first[0].headers);
    // a second message would pass the bound while the first is pending: refused
    const second = splitBroadcast(bytes(10_000, 2), 4000, {});
    expect(a.add(second[0].data, second[0].headers)).toBeUndefined();
    expect(logs.messages('warn').some((m) => /would pass the bound of 12000/.test(m))).toBe(true);
    await sleep(200);
    expect(logs.messages('warn').some((m) => /1 of 3 parts within 100 ms/.test(m))).toBe(true);
    // with the first dropped, a third message fits again
    const third = splitBroadcast(bytes(10_000, 3), 4000, {});
    const out = third.map((p) => a.add(p.data, p.headers));
    expect(Buffer.from(out[2]!).equals(Buffer.from(bytes(10_000, 3)))).toBe(true);
    a.stop();
  });

  it('drops a malformed part (outside the announced size, or twice) and the message it belongs to', () => {
    const a = new BroadcastAssembler('s', 1 << 20, 1000);
    const parts = splitBroadcast(bytes(9000), 3000, {});
    a.add(parts[0].data, parts[0].headers);
    expect(a.add(parts[0].data, parts[0].headers)).toBeUndefined();
    expect(logs.messages('warn').some((m) => /malformed part at 0/.test(m))).toBe(true);
    // the rest no longer completes it
    expect(a.add(parts[1].data, parts[1].headers)).toBeUndefined();
    expect(a.add(parts[2].data, parts[2].headers)).toBeUndefined();
    a.stop();
  });
});
