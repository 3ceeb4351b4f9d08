import { given } from '../kit/testing';
import { backfillDecider, BackfillEvent, BackfillServer, backfillView } from './backfill';

const t0 = '2026-11-24T10:00:00.000Z';
const t1 = '2026-11-24T10:00:30.000Z';
const t2 = '2026-11-24T10:05:00.000Z';
const server: BackfillServer = { instanceId: 's1', matchId: 'm1', startedAt: t0, stopped: false, windowSeconds: 60, engineManaged: true };
const band = { field: 'mmr', min: 900, max: 1300 };
const opened = (rosterVersion: number, at = t1, skillBand: typeof band | null = band): BackfillEvent =>
  ({ type: 'BackfillOverridden', data: { matchId: 'm1', instanceId: 's1', accepting: true, skillBand, deadline: new Date(Date.parse(at) + 60_000).toISOString(), rosterVersion, at } });

describe('Backfill overrides', () => {
  it('accepting opens the match with a window from now, sets the band, and increments roster_version', () => {
    const s = given(backfillDecider).when({ type: 'OverrideBackfill', server, accepting: true, skillBand: band, now: t1 }).then([opened(1)]);
    expect(backfillView(s, server, [['a'], ['b']], t1)).toEqual({
      match_id: 'm1', instance_id: 's1', status: 'in_game', backfill_open: true, backfill_deadline: '2026-11-24T10:01:30.000Z', skill_band: band, roster_version: 1, roster: [['a'], ['b']],
    });
  });

  it('not accepting locks it (the band stays when omitted); accepting again reopens it', () => {
    const locked = given(backfillDecider, [opened(1)]).when({ type: 'OverrideBackfill', server, accepting: false, now: t1 }).then([
      { type: 'BackfillOverridden', data: { matchId: 'm1', instanceId: 's1', accepting: false, skillBand: band, deadline: '2026-11-24T10:01:30.000Z', rosterVersion: 2, at: t1 } },
    ]);
    expect(backfillView(locked, server, [], t1)).toMatchObject({ status: 'locked', backfill_open: false, roster_version: 2 });
    const reopened = given(backfillDecider, [opened(1), { ...opened(2), data: { ...opened(2).data, accepting: false } }]).when({ type: 'OverrideBackfill', server, accepting: true, now: t2 });
    expect(backfillView(reopened.then([opened(3, t2)]), server, [], t2)).toMatchObject({ status: 'in_game', backfill_open: true, roster_version: 3 });
  });

  it('a completed match (its server stopped) refuses every override (409) and shows no window', () => {
    const stopped = { ...server, stopped: true };
    given(backfillDecider, [opened(1)]).when({ type: 'OverrideBackfill', server: stopped, accepting: true, now: t2 }).thenError('conflict', /completed/);
    expect(backfillView(given(backfillDecider, [opened(1)]).state, stopped, [], t2)).toMatchObject({ status: 'completed', backfill_open: false, backfill_deadline: null });
  });

  it('before any override: closed; an engine-managed match shows its window from the server start, a direct start none; past the deadline it is not open', () => {
    expect(backfillView(backfillDecider.initialState, server, [], t1)).toMatchObject({ status: 'in_game', backfill_open: false, backfill_deadline: '2026-11-24T10:01:00.000Z', roster_version: 0, skill_band: null });
    expect(backfillView(backfillDecider.initialState, { ...server, engineManaged: false }, [], t1).backfill_deadline).toBeNull();
    expect(backfillView(given(backfillDecider, [opened(1)]).state, server, [], t2).backfill_open).toBe(false);
  });
});

describe('Backfill roster changes', () => {
  const left = { type: 'BackfillRosterChanged' as const, data: { matchId: 'm1', freeSlots: 1, reason: 'left' as const, roster: [['a'], []], rosterVersion: 1, at: t1 } };
  it('every roster change increments roster_version; an engine-managed match opens while freed slots wait, closes when full', () => {
    const s = given(backfillDecider).when({ type: 'ChangeRoster', matchId: 'm1', freeSlots: 1, reason: 'left', roster: [['a'], []], now: t1 }).then([left]);
    expect(backfillView(s, server, [['a'], ['b']], t1)).toMatchObject({ status: 'in_game', backfill_open: true, roster_version: 1 });
    const full = given(backfillDecider, [left]).when({ type: 'ChangeRoster', matchId: 'm1', freeSlots: 0, reason: 'filled', roster: [['a'], ['c']], now: t1 })
      .then([{ type: 'BackfillRosterChanged', data: { matchId: 'm1', freeSlots: 0, reason: 'filled', roster: [['a'], ['c']], rosterVersion: 2, at: t1 } }]);
    expect(backfillView(full, server, [['a'], ['b']], t1)).toMatchObject({ backfill_open: false, roster_version: 2 });
    // past the window, or locked by the game: not open
    expect(backfillView(s, server, [], t2).backfill_open).toBe(false);
    const locked = given(backfillDecider, [left]).when({ type: 'OverrideBackfill', server, accepting: false, now: t1 }).then([
      { type: 'BackfillOverridden', data: { matchId: 'm1', instanceId: 's1', accepting: false, skillBand: null, deadline: null, rosterVersion: 2, at: t1 } },
    ]);
    expect(backfillView(locked, server, [], t1)).toMatchObject({ status: 'locked', backfill_open: false });
  });

  it('the roster read is the one of roster_version: the last change\'s teams, not the server\'s custom_data (updated a moment later); before any change, the start\'s', () => {
    const started = [['a'], ['b']];
    expect(backfillView(backfillDecider.initialState, server, started, t1).roster).toEqual(started);
    const s = given(backfillDecider, [left]).when({ type: 'ChangeRoster', matchId: 'm1', freeSlots: 0, reason: 'filled', roster: [['a'], ['c']], now: t1 })
      .then([{ type: 'BackfillRosterChanged', data: { matchId: 'm1', freeSlots: 0, reason: 'filled', roster: [['a'], ['c']], rosterVersion: 2, at: t1 } }]);
    expect(backfillView(s, server, started, t1)).toMatchObject({ roster_version: 2, roster: [['a'], ['c']] });
    // an override keeps the roster of the last change
    const overridden = given(backfillDecider, [left, { type: 'BackfillOverridden', data: { matchId: 'm1', instanceId: 's1', accepting: true, skillBand: null, deadline: t2, rosterVersion: 2, at: t1 } }]).state;
    expect(backfillView(overridden, server, started, t1).roster).toEqual([['a'], []]);
    // a change recorded before rosters were carried reads the server's
    const old = given(backfillDecider, [{ type: 'BackfillRosterChanged', data: { matchId: 'm1', freeSlots: 1, reason: 'left', rosterVersion: 1, at: t1 } }]).state;
    expect(backfillView(old, server, started, t1).roster).toEqual(started);
  });
});
