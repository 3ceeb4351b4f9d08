// Pools sized from demand (issue 38): a pure policy, demand signals in, the ready count a pool region should
// keep out. A static pool keeps `min_ready` whatever happens: it pays for idle servers at 4 a.m. and still
// falls back to cold starts when a tournament fills the queues. Spawnpoint owns the matchmaker and the
// lobbies, so it sees a claim coming before it arrives: a match forming in a queue, a lobby starting. The
// pool keeps ready what will be claimed before a server started now could be ready (its warm-up), with
// headroom, grows ahead when the queues grow, and goes to zero after a quiet spell.
import type { PoolRegionConfig } from './pool-plan';

/** The demand extension of a pool region (`pool_config.regions.<region>.demand`). Absent: the static pool. */
export interface PoolDemandConfig {
  /** Seconds a pool server takes from start to ready: how far ahead the pool must see. Default 5. */
  warmup_seconds?: number;
  /** Kept on top of the forecast, as a fraction of it. Default 0.5. */
  headroom?: number;
  /** With no demand for this long the region keeps no ready server at all (below min_ready). Absent or null: never. */
  scale_to_zero_after_seconds?: number | null;
  /**
   * The target goes down only once it has stayed lower for this long (it goes up at once): demand that
   * flickers second by second does not start and stop servers with it. Default 60.
   */
  scale_down_after_seconds?: number;
  /** Times of day (UTC, "HH:MM", `to` exclusive, may wrap past midnight) with a ready count of their own, as a floor. */
  schedule?: { from: string; to: string; min_ready: number }[];
}

/** What the platform sees of one pool region's demand, now. */
export interface DemandSignals {
  /** Now, ms since the epoch (from the caller: the policy reads no clock). */
  at: number;
  /** Matches forming in the queues whose servers come from this pool (queued lobbies ÷ lobbies per match). */
  queuedMatches: number;
  /** How fast that grows, per second (a rate of change; negative when the queues drain). */
  queueTrendPerSecond: number;
  /** Lobbies starting with no server yet. */
  lobbiesStarting: number;
  /** Claims of this pool region per second, lately. */
  claimRatePerSecond: number;
}

/** What the policy remembers between decisions. */
export interface DemandState {
  /** When demand was last seen (ms); null: never. */
  lastDemandAt: number | null;
  /** The highest target of the scale-down window, and when it was set (ms). */
  held?: { desired: number; at: number };
}

export const NO_DEMAND_SEEN: DemandState = { lastDemandAt: null };

export interface PoolTarget {
  /** Ready (unclaimed) servers to keep. */
  desired: number;
  /** Why, in words (the console's capacity page shows them). */
  why: string[];
  state: DemandState;
}

const DEFAULT_WARMUP_SECONDS = 5;
const DEFAULT_HEADROOM = 0.5;
const DEFAULT_SCALE_DOWN_AFTER_SECONDS = 60;

/** The ready count of one pool region. Without `demand` it is `min_ready` (the static pool, as before). */
export function poolTarget(region: PoolRegionConfig, signals: DemandSignals, state: DemandState): PoolTarget {
  if (!region.demand) return { desired: Math.min(region.min_ready, region.max), why: ['static: min_ready'], state };
  const demand = region.demand;
  const warmup = demand.warmup_seconds ?? DEFAULT_WARMUP_SECONDS;
  const headroom = demand.headroom ?? DEFAULT_HEADROOM;
  // A claim rate decays for ever without reaching zero: below one claim an hour it is none.
  const seen = signals.queuedMatches > 0 || signals.lobbiesStarting > 0 || signals.claimRatePerSecond * 3600 >= 1;
  const lastDemandAt = seen ? signals.at : state.lastDemandAt;
  const why: string[] = [];

  // The claims a server started now would be too late for: those of the next warm-up. The queues say it
  // first (every forming match claims soon), the recent claim rate says it for demand that skips queues,
  // and a growing queue adds what it will grow by meanwhile.
  const byRate = signals.claimRatePerSecond * warmup;
  const byQueue = signals.queuedMatches + signals.lobbiesStarting;
  const growth = Math.max(0, signals.queueTrendPerSecond) * warmup;
  const forecast = Math.max(byRate, byQueue) + growth;
  if (forecast > 0) {
    why.push(`forecast ${round(forecast)} claims within the ${warmup} s warm-up (rate ${round(byRate)}, queues ${round(byQueue)}, growth ${round(growth)})`);
  }
  let desired = Math.ceil(forecast * (1 + headroom));

  const idleFor = lastDemandAt === null ? Infinity : (signals.at - lastDemandAt) / 1000;
  const zeroAfter = demand.scale_to_zero_after_seconds ?? null;
  const scheduled = scheduledFloor(demand.schedule ?? [], signals.at);
  const toZero = zeroAfter !== null && idleFor >= zeroAfter && !seen;
  // Down only after the window (up at once); going to zero after the quiet spell is not held back.
  const window = (demand.scale_down_after_seconds ?? DEFAULT_SCALE_DOWN_AFTER_SECONDS) * 1000;
  const held = state.held && !toZero && desired < state.held.desired && signals.at - state.held.at < window ? state.held : { desired, at: signals.at };
  if (held.desired > desired) {
    why.push(`held at ${held.desired} until ${Math.ceil((held.at + window - signals.at) / 1000)} s from now (scale down after ${window / 1000} s)`);
    desired = held.desired;
  }
  if (toZero) {
    why.push(`no demand for ${Number.isFinite(idleFor) ? `${Math.round(idleFor)} s` : 'ever'} (scale to zero after ${zeroAfter} s)`);
  } else if (desired < region.min_ready) {
    desired = region.min_ready;
    why.push(`floor: min_ready ${region.min_ready}`);
  }
  if (scheduled !== null && desired < scheduled) {
    desired = scheduled;
    why.push(`floor: schedule ${scheduled}`);
  }
  if (desired > region.max) {
    desired = region.max;
    why.push(`capped at max ${region.max}`);
  }
  return { desired, why, state: { lastDemandAt, held } };
}

/** The schedule's ready count at `at` (the largest of the entries that cover it), or null. */
export function scheduledFloor(schedule: { from: string; to: string; min_ready: number }[], at: number): number | null {
  const d = new Date(at);
  const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
  let floor: number | null = null;
  for (const s of schedule) {
    const from = minutesOf(s.from);
    const to = minutesOf(s.to);
    const inside = from <= to ? minute >= from && minute < to : minute >= from || minute < to;
    if (inside) floor = Math.max(floor ?? 0, s.min_ready);
  }
  return floor;
}

const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
};

const round = (x: number) => Math.round(x * 10) / 10;

/**
 * A rate that forgets: an exponentially weighted events-per-second, decaying with `halfLifeSeconds`.
 * Pure: `observe` and `rateAt` return values; the caller keeps the meter.
 */
export interface RateMeter {
  /** Events per second as of `at`. */
  rate: number;
  at: number;
}

export const EMPTY_METER: RateMeter = { rate: 0, at: 0 };

export function rateAt(meter: RateMeter, at: number, halfLifeSeconds: number): number {
  if (at <= meter.at) return meter.rate;
  return meter.rate * 0.5 ** ((at - meter.at) / 1000 / halfLifeSeconds);
}

/** `count` events at `at`. */
export function observe(meter: RateMeter, at: number, count: number, halfLifeSeconds: number): RateMeter {
  // Each event adds its share of a rate decaying at this half-life (ln 2 / half-life per event): n events
  // a second for a long while settle at a rate of n.
  const decayed = rateAt(meter, at, halfLifeSeconds);
  return { rate: decayed + (count * Math.LN2) / halfLifeSeconds, at: Math.max(at, meter.at) };
}
