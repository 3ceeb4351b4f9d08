import { chooseRegion, equalRulesHold, lobbyRegions, resolveMode } from '.';

const plain = resolveMode('m', { teams: 2, playersPerTeam: 2 });
const latency = (over: object = {}) => resolveMode('m', { teams: 2, playersPerTeam: 2, rules: [{ type: 'latency', maxMs: 80 }], ...over });
const lobby = (region: string, queuedAt: string, ...pings: (Record<string, number> | null)[]) =>
  ({ region, queuedAt, players: pings.map((ping) => ({ state: ping ? { ping } : {} })) });

describe('match region', () => {
  it('without a latency rule only one region: the lobbies\' own', () => {
    expect(chooseRegion(plain, [lobby('eu-west', 't1', null), lobby('eu-west', 't2', null)])).toBe('eu-west');
    expect(chooseRegion(plain, [lobby('eu-west', 't1', null), lobby('us-east', 't2', null)])).toBeNull();
  });

  it('with one, any region every player reaches within maxMs; a player without pings keeps the lobby\'s region', () => {
    expect(lobbyRegions(latency(), lobby('eu-west', 't', { 'eu-west': 30, 'us-east': 90 }, { 'eu-west': 40, 'eu-central': 20 }))).toEqual(['eu-west']);
    expect(lobbyRegions(latency(), lobby('us-east', 't', null))).toEqual(['us-east']);
    expect(chooseRegion(latency(), [lobby('eu-west', 't1', { 'eu-west': 30, 'eu-central': 35 }), lobby('eu-central', 't2', { 'eu-west': 90, 'eu-central': 20 })])).toBe('eu-central');
  });

  it('vote: the region of most players wins; a tie goes to the lowest mean ping', () => {
    const a = lobby('eu-west', 't1', { 'eu-west': 50, 'eu-central': 20 });
    const b = lobby('eu-central', 't2', { 'eu-west': 30, 'eu-central': 40 }, { 'eu-west': 30, 'eu-central': 40 });
    expect(chooseRegion(latency(), [a, b])).toBe('eu-central'); // 2 players vote eu-central, 1 eu-west
    const c = lobby('eu-central', 't2', { 'eu-west': 30, 'eu-central': 40 });
    expect(chooseRegion(latency(), [a, c])).toBe('eu-central'); // 1 : 1, mean ping 30 vs 40 → eu-central (20+40)/2=30 < (50+30)/2=40
  });

  it('host: the oldest lobby\'s region when every player reaches it, else the vote', () => {
    const host = latency({ regions: 'host' });
    const old = lobby('eu-west', '2026-01-01T00:00:00Z', { 'eu-west': 10, 'eu-central': 70 });
    const young = lobby('eu-central', '2026-01-01T00:00:05Z', { 'eu-west': 70, 'eu-central': 10 }, { 'eu-west': 70, 'eu-central': 10 });
    expect(chooseRegion(host, [young, old])).toBe('eu-west');
    const far = lobby('eu-central', '2026-01-01T00:00:05Z', { 'eu-west': 95, 'eu-central': 10 });
    expect(chooseRegion(host, [far, old])).toBe('eu-central');
  });

  it('no region in common: null (blockedBy no_common_region)', () => {
    expect(chooseRegion(latency(), [lobby('eu-west', 't1', { 'eu-west': 10 }), lobby('us-east', 't2', { 'us-east': 10 })])).toBeNull();
  });
});

describe('equal rule', () => {
  it('every player of the match has the same value of the field', () => {
    const mode = resolveMode('m', { teams: 2, playersPerTeam: 1, rules: [{ type: 'equal', field: 'map' }] });
    expect(equalRulesHold(mode, [{ state: { map: 'dust' } }, { state: { map: 'dust' } }])).toBe(true);
    expect(equalRulesHold(mode, [{ state: { map: 'dust' } }, { state: { map: 'nuke' } }])).toBe(false);
    expect(equalRulesHold(mode, [{ state: { map: 'dust' } }, { state: {} }])).toBe(false);
    expect(equalRulesHold(plain, [{ state: { map: 'dust' } }, { state: {} }])).toBe(true);
  });
});
