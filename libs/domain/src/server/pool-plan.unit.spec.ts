import { PoolConfig, PoolMember, planPool } from './pool-plan';

const config = (regions: PoolConfig['regions'], over: Partial<PoolConfig> = {}): PoolConfig => ({
  enabled: true, regions, build_name: 'game', build_version: null, compute_size: 'small', ...over,
});
let n = 0;
const member = (region: string, version: number, status: PoolMember['status'] = 'running', computeSize = 'small'): PoolMember => ({
  serverId: `s${++n}`, region, version, computeSize, status, createdAt: `2026-11-21T10:00:${String(n).padStart(2, '0')}.000Z`,
});

describe('planPool', () => {
  it('fills each region up to min_ready', () => {
    expect(planPool(config({ 'us-east': { min_ready: 3, max: 5 }, 'eu-west': { min_ready: 1, max: 1 } }), 2, [member('us-east', 2)]))
      .toEqual({ start: [{ region: 'us-east', count: 2 }, { region: 'eu-west', count: 1 }], stop: [] });
  });

  it('counts launching servers as on their way, and does nothing when full', () => {
    const members = [member('us-east', 2), member('us-east', 2, 'launching')];
    expect(planPool(config({ 'us-east': { min_ready: 2, max: 4 } }), 2, members)).toEqual({ start: [], stop: [] });
  });

  it('drains everything when disabled, or a region that is no longer configured', () => {
    const a = member('us-east', 2);
    const b = member('sea', 2);
    expect(planPool(config({ 'us-east': { min_ready: 1, max: 2 } }, { enabled: false }), 2, [a, b])).toEqual({ start: [], stop: [a.serverId, b.serverId] });
    expect(planPool(null, 2, [a])).toEqual({ start: [], stop: [a.serverId] });
    expect(planPool(config({ 'us-east': { min_ready: 1, max: 2 } }), 2, [a, b])).toEqual({ start: [], stop: [b.serverId] });
  });

  it('rolls a new build version out gradually: old servers go only as new ones are ready, at most max_surge new ones at once', () => {
    const old = [member('us-east', 1), member('us-east', 1)];
    const regions = { 'us-east': { min_ready: 2, max: 4 } };
    // Room for new ones: start a quarter of the target (at least one) above it, keep the old ones serving.
    expect(planPool(config(regions), 2, old)).toEqual({ start: [{ region: 'us-east', count: 1 }], stop: [] });
    expect(planPool(config(regions, { rollout: { max_surge: 2 } }), 2, old)).toEqual({ start: [{ region: 'us-east', count: 2 }], stop: [] });
    // New ones launching: still keep the old ones, start no more.
    const launching = [member('us-east', 2, 'launching')];
    expect(planPool(config(regions), 2, [...old, ...launching])).toEqual({ start: [], stop: [] });
    // One new one ready: one old one may go, and the next new one starts.
    const oneReady = [member('us-east', 2)];
    expect(planPool(config(regions), 2, [...old, ...oneReady])).toEqual({ start: [{ region: 'us-east', count: 1 }], stop: [old[0].serverId] });
  });

  it('goes below the target only by max_unavailable, and without a surge replaces old servers that many at a time', () => {
    const old = [member('us-east', 1), member('us-east', 1), member('us-east', 1), member('us-east', 1)];
    const regions = { 'us-east': { min_ready: 4, max: 8 } };
    const plan = planPool(config(regions, { rollout: { max_surge: 0, max_unavailable: 2 } }), 2, old);
    expect(plan).toEqual({ start: [{ region: 'us-east', count: 2 }], stop: [old[0].serverId, old[1].serverId] });
    // Two new ones launching, two old ones serving: ready is at its floor (4 - 2), nothing more goes yet.
    const rest = [old[2], old[3], member('us-east', 2, 'launching'), member('us-east', 2, 'launching')];
    expect(planPool(config(regions, { rollout: { max_surge: 0, max_unavailable: 2 } }), 2, rest)).toEqual({ start: [], stop: [] });
  });

  it('rolls a pool kept at its max one server at a time', () => {
    const old = [member('us-east', 1), member('us-east', 1)];
    const regions = { 'us-east': { min_ready: 2, max: 2 } };
    expect(planPool(config(regions), 2, old)).toEqual({ start: [{ region: 'us-east', count: 1 }], stop: [old[0].serverId] });
    // The new one launching: the last old one keeps serving.
    expect(planPool(config(regions), 2, [old[1], member('us-east', 2, 'launching')])).toEqual({ start: [], stop: [] });
    // The new one ready: the last old one makes room for the second new one.
    expect(planPool(config(regions), 2, [old[1], member('us-east', 2)])).toEqual({ start: [{ region: 'us-east', count: 1 }], stop: [old[1].serverId] });
  });

  it('a rollout, whatever the bounds and however servers come up, keeps its bounds and ends with the target all new', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647);
    for (let trial = 0; trial < 300; trial++) {
      const target = 1 + Math.floor(random() * 8);
      const max = target + Math.floor(random() * 4);
      const rollout = { max_surge: Math.floor(random() * 3), max_unavailable: Math.floor(random() * 3) };
      if (rollout.max_surge === 0 && rollout.max_unavailable === 0) rollout.max_surge = 1;
      const c = config({ 'us-east': { min_ready: target, max } }, { rollout });
      let members = Array.from({ length: target }, () => member('us-east', 1));
      // Below the target less max_unavailable only when max leaves no room for a surge (one at a time then).
      const floor = target - Math.max(rollout.max_unavailable, Math.min(rollout.max_surge, max - target) === 0 ? 1 : 0);
      let rounds = 0;
      for (; rounds < 200; rounds++) {
        const plan = planPool(c, 2, members);
        members = members.filter((m) => !plan.stop.includes(m.serverId));
        expect(members.filter((m) => m.status === 'running').length).toBeGreaterThanOrEqual(floor);
        for (const { count } of plan.start) for (let i = 0; i < count; i++) members.push(member('us-east', 2, 'launching'));
        expect(members.length).toBeLessThanOrEqual(max);
        if (plan.stop.length === 0 && plan.start.length === 0 && members.every((m) => m.version === 2 && m.status === 'running')) break;
        // Some of the launching ones come up before the next round.
        members = members.map((m) => (m.status === 'launching' && random() < 0.5 ? { ...m, status: 'running' } : m));
      }
      expect(rounds).toBeLessThan(200);
      expect(members).toHaveLength(target);
    }
  });

  it('replaces servers of another compute size and stops stale ones still launching at once', () => {
    const wrongSize = member('us-east', 2, 'running', 'medium');
    const staleLaunching = member('us-east', 1, 'launching');
    const plan = planPool(config({ 'us-east': { min_ready: 1, max: 3 } }), 2, [wrongSize, staleLaunching]);
    expect(plan.stop).toEqual([staleLaunching.serverId]);
    expect(plan.start).toEqual([{ region: 'us-east', count: 1 }]);
  });

  it('trims the current version to a lowered max, launching ones first', () => {
    const members = [member('us-east', 2), member('us-east', 2), member('us-east', 2, 'launching')];
    expect(planPool(config({ 'us-east': { min_ready: 1, max: 2 } }), 2, members)).toEqual({ start: [], stop: [members[2].serverId] });
  });

  it('starts nothing while no build is ready, but still drains', () => {
    const a = member('sea', 1);
    expect(planPool(config({ 'us-east': { min_ready: 2, max: 2 } }), null, [a])).toEqual({ start: [], stop: [a.serverId] });
  });

  it('sizes a region by demand when given its target: up to it, and down to it (launching ones first), zero included', () => {
    const regions = { 'us-east': { min_ready: 2, max: 10 } };
    const two = [member('us-east', 2), member('us-east', 2)];
    expect(planPool(config(regions), 2, two, { 'us-east': 5 })).toEqual({ start: [{ region: 'us-east', count: 3 }], stop: [] });
    const launching = member('us-east', 2, 'launching');
    expect(planPool(config(regions), 2, [...two, launching], { 'us-east': 1 })).toEqual({ start: [], stop: [launching.serverId, two[0].serverId] });
    expect(planPool(config(regions), 2, two, { 'us-east': 0 })).toEqual({ start: [], stop: two.map((m) => m.serverId) });
    // Never above the configured max; a region without a target keeps its min_ready.
    expect(planPool(config(regions), 2, [], { 'us-east': 50 })).toEqual({ start: [{ region: 'us-east', count: 10 }], stop: [] });
    expect(planPool(config(regions), 2, two, {})).toEqual({ start: [], stop: [] });
  });
});
