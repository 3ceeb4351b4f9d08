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

  it('rolls a new build version out gradually: old servers go only as new ones are ready', () => {
    const old = [member('us-east', 1), member('us-east', 1)];
    // Room for new ones: start them, keep the old ones serving.
    expect(planPool(config({ 'us-east': { min_ready: 2, max: 4 } }), 2, old)).toEqual({ start: [{ region: 'us-east', count: 2 }], stop: [] });
    // New ones launching: still keep the old ones.
    const launching = [member('us-east', 2, 'launching'), member('us-east', 2, 'launching')];
    expect(planPool(config({ 'us-east': { min_ready: 2, max: 4 } }), 2, [...old, ...launching])).toEqual({ start: [], stop: [] });
    // One new one ready: one old one may go.
    const oneReady = [member('us-east', 2), member('us-east', 2, 'launching')];
    expect(planPool(config({ 'us-east': { min_ready: 2, max: 4 } }), 2, [...old, ...oneReady])).toEqual({ start: [], stop: [old[0].serverId] });
  });

  it('makes room one by one when max leaves none for the new version', () => {
    const old = [member('us-east', 1), member('us-east', 1)];
    expect(planPool(config({ 'us-east': { min_ready: 2, max: 2 } }), 2, old)).toEqual({ start: [{ region: 'us-east', count: 2 }], stop: [old[0].serverId, old[1].serverId] });
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
