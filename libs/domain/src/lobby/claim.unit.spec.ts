import { given } from '../kit/testing';
import { claimDecider, ClaimEvent, lobbyCodeStream, lobbyMemberStream } from './claim';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:01:00.000Z';
const K = 'p1/default/alice';
const claimedBy = (holder: string, at = t0): ClaimEvent => ({ type: 'Claimed', data: { key: K, holder, at } });

describe('Claim', () => {
  it('given no holder, when claimed, then it is held', () => {
    const s = given(claimDecider).when({ type: 'Claim', key: K, holder: 'lobby-1', holderGone: false, now: t0 }).then([claimedBy('lobby-1')]);
    expect(s).toEqual({ holder: 'lobby-1', since: t0 });
  });

  it('given a holder, when another claims, then 409', () => {
    given(claimDecider, [claimedBy('lobby-1')]).when({ type: 'Claim', key: K, holder: 'lobby-2', holderGone: false, now: t1 }).thenError('conflict');
  });

  it('given a holder that is gone, when another claims, then the claim moves', () => {
    given(claimDecider, [claimedBy('lobby-1')]).when({ type: 'Claim', key: K, holder: 'lobby-2', holderGone: true, now: t1 }).then([claimedBy('lobby-2', t1)]);
  });

  it('given the same holder, when claimed again, then nothing changes (idempotent)', () => {
    given(claimDecider, [claimedBy('lobby-1')]).when({ type: 'Claim', key: K, holder: 'lobby-1', holderGone: false, now: t1 }).then([]);
  });

  it('given a holder, when it releases, then the key is free', () => {
    const s = given(claimDecider, [claimedBy('lobby-1')]).when({ type: 'Release', key: K, holder: 'lobby-1', now: t1 })
      .then([{ type: 'Released', data: { key: K, holder: 'lobby-1', at: t1 } }]);
    expect(s.holder).toBeNull();
  });

  it('given another holder, when a former holder releases late, then nothing changes', () => {
    given(claimDecider, [claimedBy('lobby-2')]).when({ type: 'Release', key: K, holder: 'lobby-1', now: t1 }).then([]);
  });

  it('names streams per player and config, and per code, escaping separators', () => {
    expect(lobbyMemberStream('p1', 'ranked', 'a:b')).toBe('lobbyMember-p1:ranked:a%3Ab');
    expect(lobbyCodeStream('p1', 'ABC234')).toBe('lobbyCode-p1:ABC234');
  });
});
