import { StreamWheel, wheelPlan } from './stream-wheel';

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ i }));

describe('StreamWheel', () => {
  it('visits every item once per turn, spread evenly over the slots even when all were added at once', () => {
    const wheel = new StreamWheel<{ i: number }>(4);
    const all = items(10);
    all.forEach((x) => wheel.add(x));
    const perTick = Array.from({ length: 4 }, () => wheel.tick({ presence: 1 }).presence);
    expect(perTick.map((d) => d.length)).toEqual([3, 3, 2, 2]);
    expect(perTick.flat().map((x) => x.i).sort((a, b) => a - b)).toEqual(all.map((x) => x.i));
    // the next turn visits the same slots in the same order
    expect(wheel.tick({ presence: 1 }).presence).toEqual(perTick[0]);
  });

  it('runs a job of period k on every k-th visit of each item', () => {
    const wheel = new StreamWheel<{ i: number }>(2);
    const [a, b] = items(2);
    wheel.add(a);
    wheel.add(b);
    const pings: number[][] = [];
    for (let t = 0; t < 12; t++) pings.push(wheel.tick({ presence: 1, ping: 3 }).ping.map((x) => x.i));
    // a is in slot 0 (ticks 0, 2, 4, …), b in slot 1: each pinged on its 3rd, 6th visit
    expect(pings.map((p, t) => (p.length ? `${t}:${p}` : '')).filter(Boolean)).toEqual(['4:0', '5:1', '10:0', '11:1']);
  });

  it('forgets deleted items and ignores a second add', () => {
    const wheel = new StreamWheel<{ i: number }>(1);
    const [a, b] = items(2);
    wheel.add(a);
    wheel.add(a);
    wheel.add(b);
    expect(wheel.size).toBe(2);
    wheel.delete(a);
    wheel.delete(a);
    expect(wheel.size).toBe(1);
    expect(wheel.tick({ presence: 1 }).presence).toEqual([b]);
  });

  it('rejects a slot count that is not a positive integer', () => {
    expect(() => new StreamWheel(0)).toThrow(/positive integer/);
    expect(() => new StreamWheel(1.5)).toThrow(/positive integer/);
  });
});

describe('wheelPlan', () => {
  it('turns once per shortest period in ticks of at most 100 ms, other jobs every round(period / turn) turns', () => {
    expect(wheelPlan({ presence: 2_000, ping: 30_000, queueStats: 10_000 })).toEqual({ tickMs: 100, slots: 20, every: { presence: 1, ping: 15, queueStats: 5 } });
    expect(wheelPlan({ presence: 60_000, ping: 60_000, queueStats: 200 })).toEqual({ tickMs: 100, slots: 2, every: { presence: 300, ping: 300, queueStats: 1 } });
    expect(wheelPlan({ presence: 2_000, ping: 1_000, queueStats: 10_000 })).toEqual({ tickMs: 100, slots: 10, every: { presence: 2, ping: 1, queueStats: 10 } });
    expect(wheelPlan({ presence: 50, ping: 30_000 })).toEqual({ tickMs: 50, slots: 1, every: { presence: 1, ping: 600 } });
  });

  it('rejects a period that is not positive', () => {
    expect(() => wheelPlan({ presence: 0 })).toThrow(/> 0/);
    expect(() => wheelPlan({ presence: Number.NaN })).toThrow(/> 0/);
  });
});
