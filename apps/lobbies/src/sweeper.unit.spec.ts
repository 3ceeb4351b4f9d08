import { DEFAULT_LOBBY_CONFIG, LobbyConfig } from '@spawnpoint/domain';
import { sweepCutoff, SweepRow, sweepVerdict } from './sweeper';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const config = (c: Partial<LobbyConfig>): LobbyConfig => ({ ...DEFAULT_LOBBY_CONFIG, ...c });
const row = (activity: number, players: [string, number][]): SweepRow => ({
  id: 'l1', projectId: 'p1', config: 'default', activity: iso(activity), players: players.map(([id, seen]) => [id, iso(seen)]),
});
/** Presence that knows nothing beyond the service's start (at T0). */
const nobodySeen = { lastSeen: () => T0, lastInLobby: () => T0 };

describe('sweepVerdict', () => {
  it('keeps a lobby with recent activity', () => {
    expect(sweepVerdict(row(T0 + 10_000, [['a', T0 + 10_000]]), config({ timeout: 60 }), T0 + 30_000, nobodySeen)).toBeNull();
  });

  it('deletes a lobby idle past the config timeout', () => {
    expect(sweepVerdict(row(T0, [['a', T0]]), config({ timeout: 60 }), T0 + 61_000, nobodySeen)).toEqual({ kind: 'idle' });
  });

  it('counts presence (an open stream, a heartbeat) as activity', () => {
    const streaming = { lastSeen: () => T0 + 50_000, lastInLobby: () => T0 + 50_000 };
    expect(sweepVerdict(row(T0, [['a', T0]]), config({ timeout: 60 }), T0 + 61_000, streaming)).toBeNull();
  });

  it('without heartbeat, never removes single members', () => {
    expect(sweepVerdict(row(T0 + 59_000, [['a', T0], ['b', T0]]), config({ timeout: 60 }), T0 + 60_000, nobodySeen)).toBeNull();
  });

  it('with heartbeat, removes exactly the members silent past heartbeatTimeout', () => {
    const presence = { lastSeen: (_l: string, p: string) => (p === 'a' ? T0 + 25_000 : T0), lastInLobby: () => T0 + 25_000 };
    const verdict = sweepVerdict(row(T0, [['a', T0], ['b', T0], ['c', T0 + 21_000]]), config({ heartbeat: true, heartbeatTimeout: 10 }), T0 + 30_001, presence);
    expect(verdict).toEqual({ kind: 'stale', playerIds: ['b'] });
  });
});

describe('sweepCutoff', () => {
  it('reads lobbies idle longer than the config timeout and, with heartbeat, members silent past heartbeatTimeout', () => {
    expect(sweepCutoff('p1', config({ name: 'duel', timeout: 60, heartbeat: true, heartbeatTimeout: 15 }), T0)).toEqual({
      projectId: 'p1', config: 'duel', idleBefore: iso(T0 - 60_000), staleBefore: iso(T0 - 15_000),
    });
  });

  it('without heartbeat, filters on idleness only', () => {
    expect(sweepCutoff('p1', config({ timeout: 300 }), T0)).toMatchObject({ idleBefore: iso(T0 - 300_000), staleBefore: null });
  });

  it('leaves out no lobby the verdict acts on: idle and stale lobbies are past a cutoff, a fresh one is not', () => {
    const c = config({ timeout: 60, heartbeat: true, heartbeatTimeout: 15 });
    const now = T0 + 100_000;
    const cut = sweepCutoff('p1', c, now);
    const isCandidate = (activity: number, oldestSeen: number) => activity < Date.parse(cut.idleBefore) || oldestSeen < Date.parse(cut.staleBefore!);
    const cases = [
      { activity: T0, seen: T0, verdict: 'idle' },
      { activity: T0 + 99_000, seen: T0 + 50_000, verdict: 'stale' },
      { activity: T0 + 99_000, seen: T0 + 90_000, verdict: null },
    ];
    for (const { activity, seen, verdict } of cases) {
      expect(sweepVerdict(row(activity, [['a', seen], ['b', now]]), c, now, nobodySeen)?.kind ?? null).toBe(verdict);
      expect(isCandidate(activity, seen)).toBe(verdict !== null);
    }
  });
});
