import { given } from '../kit/testing';
import { lobbyDecider, LobbyEvent, lobbyView } from '.';

const t0 = '2026-11-21T10:00:00.000Z';
const t1 = '2026-11-21T10:00:01.000Z';
const t2 = '2026-11-21T10:00:02.000Z';
const late = '2026-11-21T10:05:00.000Z';
const L = 'l1';
const M = 'm1';

const created: LobbyEvent = {
  type: 'LobbyCreated',
  data: {
    lobbyId: L, projectId: 'p1', config: 'ranked', code: null, hostId: 'alice', name: null, maxPlayers: 4, region: 'eu-central',
    isPrivate: false, allowLateJoin: false, settings: {}, hostState: { mmr: 1200 }, at: t0,
  },
};
const bobJoined: LobbyEvent = { type: 'PlayerJoined', data: { lobbyId: L, playerId: 'bob', state: { mmr: 1000 }, at: t0 } };
const players = [{ id: 'alice', state: { mmr: 1200 } }, { id: 'bob', state: { mmr: 1000 } }];
const queue = (ticket: number, more: Partial<{ players: unknown[]; region: string }> = {}) => ({
  projectId: 'p1', config: 'ranked', mode: 'duo', ticket, queuedAt: t1, region: 'eu-central', players, ...more,
}) as never;
const started: LobbyEvent = { type: 'MatchmakingStarted', data: { lobbyId: L, by: 'alice', timeoutAt: '2026-11-21T10:02:01.000Z', queue: queue(1), at: t1 } };
const reserved: LobbyEvent = { type: 'LobbyReserved', data: { lobbyId: L, matchId: M, ticket: 1, at: t2 } };
const found = (deadline: string | null): LobbyEvent => ({ type: 'LobbyMatchFound', data: { lobbyId: L, matchId: M, confirmationDeadline: deadline, at: t2 } });
const matched: LobbyEvent = { type: 'LobbyMatched', data: { lobbyId: L, matchId: M, at: t2 } };
const queued = [created, bobJoined, started];
const start = { type: 'StartMatchmaking' as const, playerId: 'alice', mode: 'duo', maxPartySize: 2, timeoutMs: 120_000, now: t1 };
const server = { instance_id: 'srv-1', status: 'starting' };

describe('StartMatchmaking', () => {
  it('queues a waiting lobby with its first ticket: the players, their state and the region', () => {
    const s = given(lobbyDecider, [created, bobJoined]).when(start).then([started]);
    expect(s).toMatchObject({ status: 'in_queue', matchmaking: { mode: 'duo', startedAt: t1, ticket: 1, matchId: null, confirmation: null } });
    expect(lobbyView(s).matchmaking).toEqual({ mode: 'duo', startedAt: t1, queueStats: { playersSearching: 0, lobbiesInQueue: 0, avgWaitSeconds: 0 }, confirmation: null });
  });

  it('is for the host only (403), from waiting only (409), and refuses a party over the mode cap (422 at body.mode)', () => {
    given(lobbyDecider, [created, bobJoined]).when({ ...start, playerId: 'bob' }).thenError('forbidden');
    given(lobbyDecider, queued).when(start).thenError('conflict', /in_queue/);
    const e = given(lobbyDecider, [created, bobJoined]).when({ ...start, maxPartySize: 1 }).thenError('invalid');
    expect(e.detail).toEqual([expect.objectContaining({ loc: ['body', 'mode'], type: 'party_too_large' })]);
  });

  it('clears the last search error', () => {
    const failed: LobbyEvent = { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'failed', error: 'no server', at: t2 } };
    const before = given(lobbyDecider, [...queued, failed]).state;
    expect(lobbyView(before).matchmakingError).toBe('no server');
    const s = given(lobbyDecider, [...queued, failed]).when({ ...start, now: late }).then([
      { type: 'MatchmakingStarted', data: { lobbyId: L, by: 'alice', timeoutAt: '2026-11-21T10:07:00.000Z', queue: { ...(queue(2) as object), queuedAt: late } as never, at: late } },
    ]);
    expect(lobbyView(s).matchmakingError).toBeUndefined();
  });
});

describe('while queued', () => {
  it('a state change issues a new ticket carrying the whole roster', () => {
    given(lobbyDecider, queued).when({ type: 'UpdatePlayerState', playerId: 'bob', state: { mmr: 1100 }, now: t2 }).then([
      { type: 'PlayerStateUpdated', data: { lobbyId: L, playerId: 'bob', state: { mmr: 1100 }, at: t2 } },
      { type: 'MatchmakingTicketChanged', data: { lobbyId: L, reason: 'changed', matchId: null, queue: queue(2, { players: [players[0], { id: 'bob', state: { mmr: 1100 } }] }), at: t2 } },
    ]);
  });

  it('a leave drops a reservation (the match is named) and the lobby stays queued', () => {
    const s = given(lobbyDecider, [...queued, reserved]).when({ type: 'LeaveLobby', playerId: 'bob', hostLeaveBehavior: 'promote', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'bob', reason: 'left', at: t2 } },
      { type: 'MatchmakingTicketChanged', data: { lobbyId: L, reason: 'changed', matchId: M, queue: queue(2, { players: [players[0]] }), at: t2 } },
    ]);
    expect(s).toMatchObject({ status: 'in_queue', matchmaking: { ticket: 2, matchId: null } });
  });

  it('a join is allowed and issues a ticket; changing the region is 409', () => {
    given(lobbyDecider, queued).when({ type: 'JoinLobby', playerId: 'carol', state: {}, now: t2 }).then([
      { type: 'PlayerJoined', data: { lobbyId: L, playerId: 'carol', state: {}, at: t2 } },
      { type: 'MatchmakingTicketChanged', data: { lobbyId: L, reason: 'changed', matchId: null, queue: queue(2, { players: [...players, { id: 'carol', state: {} }] }), at: t2 } },
    ]);
    given(lobbyDecider, queued).when({ type: 'UpdateSettings', playerId: 'alice', region: 'us-east', now: t2 }).thenError('conflict', /region/);
  });

  it('the last player leaving deletes the lobby, naming the match that held it', () => {
    const solo = [created, { ...started, data: { ...(started.data as object), queue: queue(1, { players: [players[0]] }) } } as LobbyEvent, reserved];
    given(lobbyDecider, solo).when({ type: 'LeaveLobby', playerId: 'alice', hostLeaveBehavior: 'promote', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'alice', reason: 'left', at: t2 } },
      { type: 'LobbyDeleted', data: { lobbyId: L, reason: 'empty', matchId: M, at: t2 } },
    ]);
  });
});

describe('ReserveForMatch', () => {
  it('holds the lobby at the ticket matched; the same match again is a no-op', () => {
    const s = given(lobbyDecider, queued).when({ type: 'ReserveForMatch', matchId: M, ticket: 1, now: t2 }).then([reserved]);
    expect(s).toMatchObject({ status: 'in_queue', matchmaking: { matchId: M } });
    given(lobbyDecider, [...queued, reserved]).when({ type: 'ReserveForMatch', matchId: M, ticket: 1, now: t2 }).thenNothing();
  });

  it('refuses a stale ticket, another match, and a lobby not queued', () => {
    given(lobbyDecider, queued).when({ type: 'ReserveForMatch', matchId: M, ticket: 0, now: t2 }).thenError('conflict', /ticket is 1/);
    given(lobbyDecider, [...queued, reserved]).when({ type: 'ReserveForMatch', matchId: 'm2', ticket: 1, now: t2 }).thenError('conflict', /held by match m1/);
    given(lobbyDecider, [created]).when({ type: 'ReserveForMatch', matchId: M, ticket: 0, now: t2 }).thenError('conflict', /waiting/);
  });

  it('a cancel racing the reservation ends the search and names the match (one outcome)', () => {
    const s = given(lobbyDecider, [...queued, reserved]).when({ type: 'CancelMatchmaking', playerId: 'alice', now: t2 }).then([
      { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'cancelled', error: null, at: t2 } },
    ]);
    expect(s).toMatchObject({ status: 'waiting', matchmaking: null, matchmakingError: null });
    given(lobbyDecider, [...queued, reserved, { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'cancelled', error: null, at: t2 } }])
      .when({ type: 'MatchFound', matchId: M, confirmationDeadline: null, now: t2 }).thenError('conflict');
  });
});

describe('MatchFound', () => {
  it('without confirmation: match_found then matched at once', () => {
    const s = given(lobbyDecider, [...queued, reserved]).when({ type: 'MatchFound', matchId: M, confirmationDeadline: null, now: t2 }).then([found(null), matched]);
    expect(s.status).toBe('matched');
  });

  it('with confirmation: match_found with the deadline; any member confirms once; MatchReady makes it matched', () => {
    const deadline = '2026-11-21T10:00:17.000Z';
    const s = given(lobbyDecider, [...queued, reserved]).when({ type: 'MatchFound', matchId: M, confirmationDeadline: deadline, now: t2 }).then([found(deadline)]);
    expect(lobbyView(s).matchmaking?.confirmation).toEqual({ deadline, confirmed: false });
    const confirmed: LobbyEvent = { type: 'LobbyMatchConfirmed', data: { lobbyId: L, matchId: M, by: 'bob', at: t2 } };
    given(lobbyDecider, [...queued, reserved, found(deadline)]).when({ type: 'ConfirmMatch', playerId: 'bob', now: t2 }).then([confirmed]);
    given(lobbyDecider, [...queued, reserved, found(deadline), confirmed]).when({ type: 'ConfirmMatch', playerId: 'alice', now: t2 }).thenNothing();
    given(lobbyDecider, [...queued, reserved, found(deadline)]).when({ type: 'ConfirmMatch', playerId: 'bob', now: late }).thenError('conflict', /deadline/);
    given(lobbyDecider, queued).when({ type: 'ConfirmMatch', playerId: 'bob', now: t2 }).thenError('conflict');
    const ready = given(lobbyDecider, [...queued, reserved, found(deadline), confirmed]).when({ type: 'MatchReady', matchId: M, now: t2 }).then([matched]);
    expect(ready.status).toBe('matched');
  });

  it('a leave once the match is found declines it: waiting with matchmakingError declined', () => {
    const s = given(lobbyDecider, [...queued, reserved, found(null), matched]).when({ type: 'LeaveLobby', playerId: 'bob', hostLeaveBehavior: 'promote', now: t2 }).then([
      { type: 'PlayerLeft', data: { lobbyId: L, playerId: 'bob', reason: 'left', at: t2 } },
      { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'left', error: 'declined', at: t2 } },
    ]);
    expect(lobbyView(s)).toMatchObject({ status: 'waiting', matchmaking: null, matchmakingError: 'declined' });
    given(lobbyDecider, [...queued, reserved, found(null)]).when({ type: 'JoinLobby', playerId: 'carol', state: {}, now: t2 }).thenError('conflict', /frozen/);
  });
});

describe('DeclineMatch', () => {
  const deadline = '2026-11-21T10:00:17.000Z';
  const confirmed: LobbyEvent = { type: 'LobbyMatchConfirmed', data: { lobbyId: L, matchId: M, by: 'alice', at: t2 } };

  it('any member declines a match found: waiting with matchmakingError declined, the match named (it dissolves)', () => {
    const s = given(lobbyDecider, [...queued, reserved, found(deadline)]).when({ type: 'DeclineMatch', playerId: 'bob', now: t2 }).then([
      { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'cancelled', error: 'declined', at: t2 } },
    ]);
    expect(lobbyView(s)).toMatchObject({ status: 'waiting', matchmaking: null, matchmakingError: 'declined' });
  });

  it('declines after the lobby confirmed too, while the match still waits for others', () => {
    given(lobbyDecider, [...queued, reserved, found(deadline), confirmed]).when({ type: 'DeclineMatch', playerId: 'alice', now: t2 }).then([
      { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'cancelled', error: 'declined', at: t2 } },
    ]);
  });

  it('without a pending match is 409: waiting, queued, or matched already', () => {
    given(lobbyDecider, [created, bobJoined]).when({ type: 'DeclineMatch', playerId: 'bob', now: t2 }).thenError('conflict', /no match pending/);
    given(lobbyDecider, [...queued, reserved]).when({ type: 'DeclineMatch', playerId: 'bob', now: t2 }).thenError('conflict', /in_queue/);
    given(lobbyDecider, [...queued, reserved, found(null), matched]).when({ type: 'DeclineMatch', playerId: 'bob', now: t2 }).thenError('conflict', /matched/);
  });

  it('a non-member is 404', () => {
    given(lobbyDecider, [...queued, reserved, found(deadline)]).when({ type: 'DeclineMatch', playerId: 'zed', now: t2 }).thenError('not_found');
  });
});

describe('ReleaseFromMatch', () => {
  const held = [...queued, reserved, found(null), matched];
  it('requeues at the first queue time with a new ticket', () => {
    const s = given(lobbyDecider, held).when({ type: 'ReleaseFromMatch', matchId: M, requeue: true, reason: 'declined', error: null, now: t2 }).then([
      { type: 'MatchmakingTicketChanged', data: { lobbyId: L, reason: 'released', matchId: M, queue: queue(2), at: t2 } },
    ]);
    expect(s).toMatchObject({ status: 'in_queue', matchmaking: { startedAt: t1, ticket: 2, matchId: null } });
  });

  it('past the search timeout a requeue ends the search with timeout', () => {
    given(lobbyDecider, held).when({ type: 'ReleaseFromMatch', matchId: M, requeue: true, reason: 'declined', error: null, now: late }).then([
      { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'timeout', error: 'timeout', at: late } },
    ]);
  });

  it('to waiting with the error; a release by another match is a no-op', () => {
    given(lobbyDecider, held).when({ type: 'ReleaseFromMatch', matchId: M, requeue: false, reason: 'failed', error: 'no capacity', now: t2 }).then([
      { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: M, reason: 'failed', error: 'no capacity', at: t2 } },
    ]);
    given(lobbyDecider, held).when({ type: 'ReleaseFromMatch', matchId: 'other', requeue: false, reason: 'failed', error: 'x', now: t2 }).thenNothing();
  });
});

describe("the match's server", () => {
  const held = [...queued, reserved, found(null), matched];
  const assigned: LobbyEvent = { type: 'LobbyServerAssigned', data: { lobbyId: L, server, at: t2 } };
  it('a matched lobby takes the match server (starting); its end names the match and clears matchmaking', () => {
    const s = given(lobbyDecider, held).when({ type: 'ServerAssigned', server, now: t2 }).then([assigned]);
    expect(s.status).toBe('starting');
    const running: LobbyEvent = { type: 'GameStarted', data: { lobbyId: L, at: t2 } };
    const ended = given(lobbyDecider, [...held, assigned, running]).when({ type: 'EndMatch', playerId: 'alice', now: t2 }).then([
      { type: 'GameEnded', data: { lobbyId: L, reason: 'host', by: 'alice', matchId: M, at: t2 } },
    ]);
    expect(ended).toMatchObject({ status: 'waiting', server: null, matchmaking: null });
  });

  it('cancel is 409 once the lobby has its server', () => {
    given(lobbyDecider, [...held, assigned]).when({ type: 'CancelMatchmaking', playerId: 'alice', now: t2 }).thenError('conflict', /not searching/);
  });
});

describe('QueueTimeout', () => {
  it('ends the search it was set for, when due and not held', () => {
    const timedOut: LobbyEvent = { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: null, reason: 'timeout', error: 'timeout', at: late } };
    given(lobbyDecider, queued).when({ type: 'QueueTimeout', startedAt: t1, now: late }).then([timedOut]);
    given(lobbyDecider, queued).when({ type: 'QueueTimeout', startedAt: t1, now: t2 }).thenNothing();
    given(lobbyDecider, queued).when({ type: 'QueueTimeout', startedAt: t0, now: late }).thenNothing();
    given(lobbyDecider, [...queued, reserved]).when({ type: 'QueueTimeout', startedAt: t1, now: late }).thenNothing();
  });

  it('refuses a timer of a search that ended, or of an earlier search (the lobby-queue workflow keeps no state to tell)', () => {
    const cancelled: LobbyEvent = { type: 'MatchmakingEnded', data: { lobbyId: L, matchId: null, reason: 'cancelled', error: null, at: t2 } };
    given(lobbyDecider, [...queued, cancelled]).when({ type: 'QueueTimeout', startedAt: t1, now: late }).thenNothing();
    const again: LobbyEvent = { type: 'MatchmakingStarted', data: { lobbyId: L, by: 'alice', timeoutAt: '2026-11-21T10:07:00.000Z', queue: { ...(queue(2) as object), queuedAt: late } as never, at: late } };
    given(lobbyDecider, [...queued, cancelled, again]).when({ type: 'QueueTimeout', startedAt: t1, now: late }).thenNothing();
  });
});
