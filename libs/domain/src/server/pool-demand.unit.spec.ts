// The demand policy of a pool region: given its config and what the platform sees, the ready count it keeps.
import { EMPTY_METER, NO_DEMAND_SEEN, observe, poolTarget, rateAt, scheduledFloor, type DemandSignals } from './pool-demand';

const at = Date.parse('2026-11-29T12:00:00.000Z');
const quiet: DemandSignals = { at, queuedMatches: 0, queueTrendPerSecond: 0, lobbiesStarting: 0, claimRatePerSecond: 0 };
const demand = { warmup_seconds: 5, headroom: 0.5, scale_to_zero_after_seconds: 300 };

describe('pool demand policy', () => {
  it('without a demand config, keeps min_ready whatever the signals (the static pool, unchanged)', () => {
    expect(poolTarget({ min_ready: 4, max: 10 }, { ...quiet, claimRatePerSecond: 9 }, NO_DEMAND_SEEN).desired).toBe(4);
  });

  it('keeps ready what the warm-up would be too late for, with headroom: 2 claims/s × 5 s × 1.5 = 15', () => {
    const t = poolTarget({ min_ready: 1, max: 100, demand }, { ...quiet, claimRatePerSecond: 2 }, NO_DEMAND_SEEN);
    expect(t.desired).toBe(15);
    expect(t.why.join(' ')).toMatch(/forecast 10 claims within the 5 s warm-up/);
    expect(t.state.lastDemandAt).toBe(at);
  });

  it('grows before the claims arrive: a queue of forming matches and its growth count before any claim', () => {
    const t = poolTarget({ min_ready: 0, max: 100, demand }, { ...quiet, queuedMatches: 4, queueTrendPerSecond: 1 }, NO_DEMAND_SEEN);
    // max(rate 0, queues 4) + growth 1 × 5 = 9, × 1.5 → 14
    expect(t.desired).toBe(14);
    // Lobbies starting without a server claim too.
    expect(poolTarget({ min_ready: 0, max: 100, demand }, { ...quiet, lobbiesStarting: 2 }, NO_DEMAND_SEEN).desired).toBe(3);
  });

  it('keeps min_ready while demand is recent, and goes to zero after the quiet spell', () => {
    const region = { min_ready: 3, max: 100, demand };
    const recently = { lastDemandAt: at - 60_000 };
    expect(poolTarget(region, quiet, recently).desired).toBe(3);
    const long = poolTarget(region, quiet, { lastDemandAt: at - 301_000 });
    expect(long.desired).toBe(0);
    expect(long.why.join(' ')).toMatch(/no demand for 301 s/);
    // Never any demand at all: zero as well.
    expect(poolTarget(region, quiet, NO_DEMAND_SEEN).desired).toBe(0);
    // Without scale_to_zero_after_seconds, min_ready stays the floor.
    expect(poolTarget({ min_ready: 3, max: 100, demand: { warmup_seconds: 5 } }, quiet, { lastDemandAt: at - 86_400_000 }).desired).toBe(3);
  });

  it('comes back from zero at the first sign of demand (a queue forming), before its first claim', () => {
    const t = poolTarget({ min_ready: 2, max: 100, demand }, { ...quiet, queuedMatches: 1 }, { lastDemandAt: at - 3_600_000 });
    expect(t.desired).toBe(2);
    expect(t.state.lastDemandAt).toBe(at);
  });

  it('never keeps more than max, and a schedule raises the floor in its hours', () => {
    expect(poolTarget({ min_ready: 0, max: 8, demand }, { ...quiet, claimRatePerSecond: 10 }, NO_DEMAND_SEEN)).toMatchObject({ desired: 8, why: expect.arrayContaining(['capped at max 8']) });
    const evening = { ...demand, schedule: [{ from: '11:30', to: '13:00', min_ready: 6 }] };
    expect(poolTarget({ min_ready: 0, max: 100, demand: evening }, quiet, NO_DEMAND_SEEN).desired).toBe(6);
  });

  it('reads a schedule in UTC, `to` exclusive, wrapping past midnight', () => {
    const night = [{ from: '22:00', to: '02:00', min_ready: 5 }, { from: '23:00', to: '23:30', min_ready: 9 }];
    expect(scheduledFloor(night, Date.parse('2026-11-29T23:10:00Z'))).toBe(9);
    expect(scheduledFloor(night, Date.parse('2026-11-29T01:59:00Z'))).toBe(5);
    expect(scheduledFloor(night, Date.parse('2026-11-29T02:00:00Z'))).toBeNull();
  });
});

describe('rate meter', () => {
  it('settles at the event rate and forgets it with its half-life', () => {
    let m = EMPTY_METER;
    for (let s = 1; s <= 120; s++) m = observe(m, at + s * 1000, 2, 10);
    expect(rateAt(m, m.at, 10)).toBeCloseTo(2, 0);
    expect(rateAt(m, m.at + 10_000, 10)).toBeCloseTo(rateAt(m, m.at, 10) / 2, 5);
  });
});

describe('pool demand policy: scaling down', () => {
  const region = { min_ready: 0, max: 100, demand: { ...demand, scale_down_after_seconds: 60 } };
  it('goes up at once, and down only once the lower target has lasted the window', () => {
    const high = poolTarget(region, { ...quiet, claimRatePerSecond: 2 }, NO_DEMAND_SEEN);
    expect(high.desired).toBe(15);
    const soon = poolTarget(region, { ...quiet, at: at + 30_000, claimRatePerSecond: 0.4 }, high.state);
    expect(soon.desired).toBe(15);
    expect(soon.why.join(' ')).toMatch(/held at 15/);
    const later = poolTarget(region, { ...quiet, at: at + 61_000, claimRatePerSecond: 0.4 }, soon.state);
    expect(later.desired).toBe(3);
    // Up again at once.
    expect(poolTarget(region, { ...quiet, at: at + 62_000, claimRatePerSecond: 4 }, later.state).desired).toBe(30);
  });

  it('goes to zero after the quiet spell even while a higher target is held', () => {
    const high = poolTarget(region, { ...quiet, claimRatePerSecond: 2 }, NO_DEMAND_SEEN);
    expect(poolTarget(region, { ...quiet, at: at + 301_000 }, high.state).desired).toBe(0);
  });
});
