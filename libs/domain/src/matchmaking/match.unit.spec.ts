// The Match decider: given these events, when this command, then these events (or this refusal).
import { given } from '../kit/testing';
import { MatchEvent, matchDecider, MatchProposal } from './match';

const t0 = '2026-11-24T10:00:00.000Z';
const t1 = '2026-11-24T10:00:01.000Z';
const t2 = '2026-11-24T10:00:20.000Z';
const M = 'm1';
const lobby = (lobbyId: string, players: string[], rating = 1000) => ({ lobbyId, ticket: 3, players, rating, queuedAt: t0 });
const proposal: MatchProposal = {
  matchId: M, projectId: 'p1', config: 'default', mode: 'duel', region: 'eu-west',
  lobbies: [lobby('a', ['ann']), lobby('b', ['bob', 'bea'], 1100), lobby('c', ['cid', 'cat'], 1050)],
  teams: [['ann', 'cid', 'cat'], ['bob', 'bea']],
  requireConfirmation: false, confirmationTimeoutMs: 15_000,
};
const confirming = { ...proposal, requireConfirmation: true };
const proposed: MatchEvent = { type: 'MatchProposed', data: { ...proposal, at: t0 } };
const reserved = (lobbyId: string): MatchEvent => ({ type: 'MatchLobbyReserved', data: { matchId: M, lobbyId, at: t1 } });
const formed: MatchEvent[] = [proposed, reserved('a'), reserved('b'), reserved('c'), { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, at: t1 } }];
const toConfirm: MatchEvent[] = [{ type: 'MatchProposed', data: { ...confirming, at: t0 } }, reserved('a'), reserved('b'), reserved('c'),
  { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: '2026-11-24T10:00:16.000Z', at: t1 } }];
const requested = (attempt: number): MatchEvent => ({ type: 'MatchServerRequested', data: { matchId: M, attempt, at: t1 } });
const assigned: MatchEvent[] = [...formed, requested(1), { type: 'MatchServerAssigned', data: { matchId: M, serverId: 's1', at: t1 } }];
const running: MatchEvent[] = [...assigned, { type: 'MatchRunning', data: { matchId: M, serverId: 's1', at: t1 } }];

describe('Match: proposal', () => {
  it('records a proposal that keeps every party whole; the same proposal again is a no-op, another is 409', () => {
    given(matchDecider).when({ type: 'ProposeMatch', proposal, now: t0 }).then([proposed]);
    given(matchDecider, [proposed]).when({ type: 'ProposeMatch', proposal, now: t1 }).thenNothing();
    given(matchDecider, [proposed]).when({ type: 'ProposeMatch', proposal: { ...proposal, region: 'us-east' }, now: t1 }).thenError('conflict', /exists/);
  });

  it('refuses a proposal that loses, repeats or invents a player (422 at the field)', () => {
    const e = given(matchDecider).when({ type: 'ProposeMatch', proposal: { ...proposal, teams: [['ann', 'cid'], ['bob', 'bea']] }, now: t0 }).thenError('invalid', /exactly once/);
    expect(e.detail).toEqual([{ loc: ['proposal', 'teams'], msg: expect.any(String), type: 'value_error' }]);
    given(matchDecider).when({ type: 'ProposeMatch', proposal: { ...proposal, teams: [['ann', 'cid', 'cat', 'zed'], ['bob', 'bea']] }, now: t0 }).thenError('invalid', /exactly once/);
    given(matchDecider).when({ type: 'ProposeMatch', proposal: { ...proposal, lobbies: [...proposal.lobbies, lobby('a', ['x'])] }, now: t0 }).thenError('invalid', /twice/);
    given(matchDecider).when({ type: 'ProposeMatch', proposal: { ...proposal, lobbies: [] }, now: t0 }).thenError('invalid', /at least one/);
  });
});

describe('Match: formation (each lobby reserved on its own stream)', () => {
  it('forms once the last lobby is reserved, asking for its server in the same decision; a repeated reservation is a no-op', () => {
    given(matchDecider, [proposed]).when({ type: 'ReserveLobby', lobbyId: 'a', now: t1 }).then([reserved('a')]);
    given(matchDecider, [proposed, reserved('a')]).when({ type: 'ReserveLobby', lobbyId: 'a', now: t1 }).thenNothing();
    const s = given(matchDecider, formed.slice(0, 3)).when({ type: 'ReserveLobby', lobbyId: 'c', now: t1 })
      .then([reserved('c'), { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, serverRequested: true, at: t1 } }, requested(1)]);
    expect(s).toMatchObject({ status: 'server_requested', attempts: 1 });
    given(matchDecider, formed).when({ type: 'ReserveLobby', lobbyId: 'b', now: t1 }).thenNothing();
    // with confirmation, the server waits for it
    const c = given(matchDecider, toConfirm.slice(0, 3)).when({ type: 'ReserveLobby', lobbyId: 'c', now: t1 }).then([reserved('c'), toConfirm[4]]);
    expect(c).toMatchObject({ status: 'confirming' });
  });

  it('a reservation whose sender tells the lobbies (tellsLobbies) forms the match saying so (lobbiesTold); only the forming one says it', () => {
    given(matchDecider, [proposed]).when({ type: 'ReserveLobby', lobbyId: 'a', now: t1, tellsLobbies: true }).then([reserved('a')]);
    given(matchDecider, formed.slice(0, 3)).when({ type: 'ReserveLobby', lobbyId: 'c', now: t1, tellsLobbies: true })
      .then([reserved('c'), { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, serverRequested: true, lobbiesTold: true, at: t1 } }, requested(1)]);
    given(matchDecider, toConfirm.slice(0, 3)).when({ type: 'ReserveLobby', lobbyId: 'c', now: t1, tellsLobbies: true })
      .then([reserved('c'), { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: '2026-11-24T10:00:16.000Z', lobbiesTold: true, at: t1 } }]);
    given(matchDecider, formed).when({ type: 'ReserveLobby', lobbyId: 'b', now: t1, tellsLobbies: true }).thenNothing();
  });

  it('a refused reservation aborts the match and releases the lobbies reserved so far (not the refused one)', () => {
    const s = given(matchDecider, [proposed, reserved('a'), reserved('c')]).when({ type: 'RefuseReservation', lobbyId: 'b', reason: 'ticket_changed', now: t1 })
      .then([{ type: 'MatchAborted', data: { matchId: M, reason: 'ticket_changed', release: ['a', 'c'], at: t1 } }]);
    expect(s).toMatchObject({ status: 'aborted', reason: 'ticket_changed' });
    // a reservation racing the abort: exactly one outcome (the lobby reserved too late is let go)
    const aborted = [proposed, reserved('a'), { type: 'MatchAborted', data: { matchId: M, reason: 'ticket_changed', release: ['a'], at: t1 } } as MatchEvent];
    given(matchDecider, aborted).when({ type: 'ReserveLobby', lobbyId: 'c', now: t1 }).then([{ type: 'MatchReservationReturned', data: { matchId: M, lobbyId: 'c', at: t1 } }]);
    given(matchDecider, aborted).when({ type: 'RefuseReservation', lobbyId: 'c', reason: 'left', now: t1 }).thenNothing();
    given(matchDecider, formed).when({ type: 'RefuseReservation', lobbyId: 'c', reason: 'left', now: t1 }).thenError('conflict', /not proposed/);
  });

  it('knows only its own lobbies (404) and only existing matches (404)', () => {
    given(matchDecider, [proposed]).when({ type: 'ReserveLobby', lobbyId: 'zz', now: t1 }).thenError('not_found', /zz/);
    given(matchDecider).when({ type: 'ReserveLobby', lobbyId: 'a', now: t1 }).thenError('not_found', /match/);
  });
});

describe('Match: confirmation', () => {
  const confirm = (lobbyId: string): MatchEvent => ({ type: 'MatchLobbyConfirmed', data: { matchId: M, lobbyId, at: t1 } });

  it('waits for every lobby until the deadline: all confirm → confirmed; again is a no-op; late is 409', () => {
    expect(given(matchDecider, toConfirm).state).toMatchObject({ status: 'confirming', deadline: '2026-11-24T10:00:16.000Z' });
    given(matchDecider, toConfirm).when({ type: 'ConfirmLobby', lobbyId: 'a', now: t1 }).then([confirm('a')]);
    given(matchDecider, [...toConfirm, confirm('a')]).when({ type: 'ConfirmLobby', lobbyId: 'a', now: t1 }).thenNothing();
    const s = given(matchDecider, [...toConfirm, confirm('a'), confirm('b')]).when({ type: 'ConfirmLobby', lobbyId: 'c', now: t1 })
      .then([confirm('c'), { type: 'MatchConfirmed', data: { matchId: M, serverRequested: true, at: t1 } }, requested(1)]);
    expect(s).toMatchObject({ status: 'server_requested', attempts: 1 });
    given(matchDecider, [...toConfirm, confirm('a'), confirm('b'), confirm('c'), { type: 'MatchConfirmed', data: { matchId: M, at: t1 } }])
      .when({ type: 'ConfirmLobby', lobbyId: 'c', now: t1 }).thenNothing();
    given(matchDecider, toConfirm).when({ type: 'ConfirmLobby', lobbyId: 'a', now: t2 }).thenError('conflict', /deadline/);
    given(matchDecider, formed).when({ type: 'ConfirmLobby', lobbyId: 'a', now: t1 }).thenError('conflict', /not waiting/);
  });

  it('the deadline dissolves it: confirmed lobbies back to the queue, the others released with confirmation_timeout', () => {
    given(matchDecider, [...toConfirm, confirm('b')]).when({ type: 'ExpireConfirmation', now: t2 })
      .then([{ type: 'MatchDissolved', data: { matchId: M, reason: 'confirmation_timeout', requeue: ['b'], release: ['a', 'c'], at: t2 } }]);
    // a timer before the deadline, or after the match moved on, is stale
    given(matchDecider, toConfirm).when({ type: 'ExpireConfirmation', now: t1 }).thenNothing();
    given(matchDecider, formed).when({ type: 'ExpireConfirmation', now: t2 }).thenNothing();
  });

  it('a decline dissolves it: the decliner released with the unconfirmed, the confirmed requeued', () => {
    given(matchDecider, [...toConfirm, confirm('a'), confirm('b')]).when({ type: 'DeclineLobby', lobbyId: 'b', reason: 'declined', now: t1 })
      .then([{ type: 'MatchDissolved', data: { matchId: M, reason: 'declined', requeue: ['a'], release: ['b', 'c'], at: t1 } }]);
  });
});

describe('Match: server', () => {
  it('requests a server once confirmed (again is a no-op), and is assigned the one started for it', () => {
    given(matchDecider, formed).when({ type: 'RequestServer', now: t1 }).then([requested(1)]);
    given(matchDecider, [...formed, requested(1)]).when({ type: 'RequestServer', now: t1 }).thenNothing();
    given(matchDecider, toConfirm).when({ type: 'RequestServer', now: t1 }).thenError('conflict', /confirmed/);
    const s = given(matchDecider, [...formed, requested(1)]).when({ type: 'AssignServer', serverId: 's1', now: t1 }).then([assigned[assigned.length - 1]]);
    expect(s).toMatchObject({ status: 'assigned', serverId: 's1', left: [] });
    given(matchDecider, assigned).when({ type: 'AssignServer', serverId: 's1', now: t1 }).thenNothing();
    given(matchDecider, assigned).when({ type: 'AssignServer', serverId: 's2', now: t1 }).thenError('conflict', /s1/);
    given(matchDecider, assigned).when({ type: 'MarkServerRunning', serverId: 's1', now: t1 }).then([running[running.length - 1]]);
    given(matchDecider, running).when({ type: 'MarkServerRunning', serverId: 's1', now: t1 }).thenNothing();
  });

  it('tries a failed start again in the same decision; the third failure fails the match and hands every lobby back', () => {
    const failed = (attempt: number): MatchEvent => ({ type: 'MatchServerStartFailed', data: { matchId: M, attempt, error: 'no capacity', at: t1 } });
    const retried = (attempt: number): MatchEvent => ({ type: 'MatchServerStartFailed', data: { matchId: M, attempt, error: 'no capacity', serverRequested: true, at: t1 } });
    const s = given(matchDecider, [...formed, requested(1)]).when({ type: 'FailServerStart', attempt: 1, error: 'no capacity', now: t1 }).then([retried(1), requested(2)]);
    expect(s).toMatchObject({ status: 'server_requested', attempts: 2 });
    // a match stored before the retry was decided here (a failure alone) is asked for the next start
    expect(given(matchDecider, [...formed, requested(1), failed(1)]).state).toMatchObject({ status: 'confirmed', attempts: 1, lastError: 'no capacity' });
    given(matchDecider, [...formed, requested(1), failed(1)]).when({ type: 'RequestServer', now: t1 }).then([requested(2)]);
    given(matchDecider, [...formed, requested(1), retried(1), requested(2)]).when({ type: 'RequestServer', now: t1 }).thenNothing();
    // a late report of an earlier attempt changes nothing
    given(matchDecider, [...formed, requested(1), failed(1), requested(2)]).when({ type: 'FailServerStart', attempt: 1, error: 'x', now: t1 }).thenNothing();
    const third = [...formed, requested(1), failed(1), requested(2), failed(2), requested(3)];
    const end = given(matchDecider, third).when({ type: 'FailServerStart', attempt: 3, error: 'no capacity', now: t1 })
      .then([{ type: 'MatchFailed', data: { matchId: M, error: 'no capacity', lobbies: ['a', 'b', 'c'], at: t1 } }]);
    expect(end).toMatchObject({ status: 'failed', reason: 'no capacity' });
  });
});

describe('Match: end', () => {
  it('the server stopping completes it with every lobby still in it', () => {
    given(matchDecider, [...running, { type: 'MatchLobbyLeft', data: { matchId: M, lobbyId: 'a', at: t1 } }]).when({ type: 'ServerStopped', serverId: 's1', now: t2 })
      .then([{ type: 'MatchCompleted', data: { matchId: M, reason: 'server_stopped', serverId: 's1', remaining: ['b', 'c'], stopServer: false, at: t2 } }]);
    given(matchDecider, running).when({ type: 'ServerStopped', serverId: 'other', now: t2 }).thenNothing();
  });

  it('end-match by one lobby leaves the match; the last one out stops the server', () => {
    const left = (lobbyId: string): MatchEvent => ({ type: 'MatchLobbyLeft', data: { matchId: M, lobbyId, at: t2 } });
    given(matchDecider, running).when({ type: 'LeaveMatch', lobbyId: 'a', now: t2 }).then([left('a')]);
    given(matchDecider, [...running, left('a')]).when({ type: 'LeaveMatch', lobbyId: 'a', now: t2 }).thenNothing();
    given(matchDecider, [...running, left('a'), left('b')]).when({ type: 'LeaveMatch', lobbyId: 'c', now: t2 })
      .then([left('c'), { type: 'MatchCompleted', data: { matchId: M, reason: 'all_left', serverId: 's1', remaining: [], stopServer: true, at: t2 } }]);
  });

  it('the formation deadline aborts a match still reserving (releasing what it holds), never one that formed meanwhile', () => {
    given(matchDecider, [proposed, reserved('b')]).when({ type: 'AbortMatch', reason: 'formation_timeout', now: t2 })
      .then([{ type: 'MatchAborted', data: { matchId: M, reason: 'formation_timeout', release: ['b'], at: t2 } }]);
    given(matchDecider, formed).when({ type: 'AbortMatch', reason: 'formation_timeout', now: t2 }).then([]);
    given(matchDecider, [...formed, requested(1)]).when({ type: 'AbortMatch', reason: 'formation_timeout', now: t2 }).then([]);
    given(matchDecider, running).when({ type: 'AbortMatch', reason: 'formation_timeout', now: t2 }).then([]);
  });
});

describe('Match: a lobby drops out on its own (cancel, a changed ticket, a leave, deletion)', () => {
  const aborted = (release: string[]): MatchEvent => ({ type: 'MatchAborted', data: { matchId: M, reason: 'cancelled', release, at: t1 } });
  it('before formation: aborts, releasing the others reserved so far', () => {
    given(matchDecider, [proposed, reserved('a'), reserved('b')]).when({ type: 'DropLobby', lobbyId: 'b', reason: 'cancelled', now: t1 }).then([aborted(['a'])]);
  });
  it('formed, before a server: aborts, the others queued again (a server start in flight then finds no match)', () => {
    given(matchDecider, formed).when({ type: 'DropLobby', lobbyId: 'b', reason: 'cancelled', now: t1 }).then([aborted(['a', 'c'])]);
    const s = given(matchDecider, [...formed, requested(1)]).when({ type: 'DropLobby', lobbyId: 'b', reason: 'cancelled', now: t1 }).then([aborted(['a', 'c'])]);
    expect(s.status).toBe('aborted');
    given(matchDecider, [...formed, requested(1), aborted(['a', 'c'])]).when({ type: 'AssignServer', serverId: 's1', now: t1 }).thenError('conflict');
  });
  it('with a server: leaves; the last one out completes the match and stops its server; after the end: no-op', () => {
    given(matchDecider, running).when({ type: 'DropLobby', lobbyId: 'a', reason: 'deleted', now: t1 }).then([{ type: 'MatchLobbyLeft', data: { matchId: M, lobbyId: 'a', at: t1 } }]);
    const aborted1 = [proposed, aborted([])];
    given(matchDecider, aborted1).when({ type: 'DropLobby', lobbyId: 'a', reason: 'cancelled', now: t1 }).thenNothing();
  });
});

describe('Match: engine-managed backfill (one fill in flight; only freed slots)', () => {
  const duo = { ...proposal, lobbies: [lobby('a', ['ann']), lobby('b', ['bob'])], teams: [['ann'], ['bob']], allowBackfill: true, playersPerTeam: 1 };
  const game: MatchEvent[] = [
    { type: 'MatchProposed', data: { ...duo, at: t0 } }, reserved('a'), reserved('b'), { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, at: t1 } },
    requested(1), { type: 'MatchServerAssigned', data: { matchId: M, serverId: 's1', at: t1 } }, { type: 'MatchRunning', data: { matchId: M, serverId: 's1', at: t1 } },
  ];
  const left: MatchEvent = { type: 'MatchLobbyLeft', data: { matchId: M, lobbyId: 'b', at: t1 } };
  const cid = lobby('c', ['cid'], 1010);
  const proposedFill: MatchEvent = { type: 'MatchFillProposed', data: { matchId: M, lobby: cid, team: 1, at: t2 } };

  it('no free slot, no fill; a lobby leaving frees its slots', () => {
    given(matchDecider, game).when({ type: 'ProposeFill', lobby: cid, team: 1, now: t2 }).thenError('conflict', /0 free slot/);
    given(matchDecider, [...game, left]).when({ type: 'ProposeFill', lobby: cid, team: 1, now: t2 }).then([proposedFill]);
  });

  it("the fill's reservation joins it to the game in that team; a refusal aborts only the fill", () => {
    const s = given(matchDecider, [...game, left, proposedFill]).when({ type: 'ReserveLobby', lobbyId: 'c', now: t2 })
      .then([{ type: 'MatchFilled', data: { matchId: M, lobbyId: 'c', team: 1, players: ['cid'], serverId: 's1', at: t2 } }]);
    expect(s).toMatchObject({ status: 'running', teams: [['ann'], ['cid']], fill: null });
    given(matchDecider, [...game, left, proposedFill]).when({ type: 'RefuseReservation', lobbyId: 'c', reason: 'ticket changed', now: t2 })
      .then([{ type: 'MatchFillAborted', data: { matchId: M, lobbyId: 'c', reason: 'ticket changed', at: t2 } }]);
  });

  it('one fill in flight; a mode without backfill never fills', () => {
    given(matchDecider, [...game, left, proposedFill]).when({ type: 'ProposeFill', lobby: lobby('d', ['dan']), team: 1, now: t2 }).thenError('conflict', /in flight/);
    given(matchDecider, [...game, left, proposedFill]).when({ type: 'ProposeFill', lobby: cid, team: 1, now: t2 }).thenNothing();
    const noBackfill = game.map((e) => (e.type === 'MatchProposed' ? { ...e, data: { ...e.data, allowBackfill: false } } : e)) as MatchEvent[];
    given(matchDecider, [...noBackfill, left]).when({ type: 'ProposeFill', lobby: cid, team: 1, now: t2 }).thenError('conflict', /no engine-managed backfill/);
  });

  it('a lock racing a fill: the lock gives up the fill in flight (its late reservation is returned); no fill while locked; reopened, fills again', () => {
    const lock = { type: 'SetBackfillAccepting', accepting: false, now: t2 } as const;
    const locked: MatchEvent = { type: 'MatchBackfillAccepting', data: { matchId: M, accepting: false, at: t2 } };
    given(matchDecider, [...game, left, proposedFill]).when(lock)
      .then([{ type: 'MatchFillAborted', data: { matchId: M, lobbyId: 'c', reason: 'backfill_locked', at: t2 } }, locked]);
    given(matchDecider, [...game, left, proposedFill, { type: 'MatchFillAborted', data: { matchId: M, lobbyId: 'c', reason: 'backfill_locked', at: t2 } }, locked])
      .when({ type: 'ReserveLobby', lobbyId: 'c', now: t2 }).then([{ type: 'MatchReservationReturned', data: { matchId: M, lobbyId: 'c', at: t2 } }]);
    given(matchDecider, [...game, left, locked]).when({ type: 'ProposeFill', lobby: cid, team: 1, now: t2 }).thenError('conflict', /locked/);
    // again: a no-op; reopened: fills are proposed again
    given(matchDecider, [...game, left, locked]).when(lock).thenNothing();
    const reopened: MatchEvent = { type: 'MatchBackfillAccepting', data: { matchId: M, accepting: true, at: t2 } };
    given(matchDecider, [...game, left, locked]).when({ type: 'SetBackfillAccepting', accepting: true, now: t2 }).then([reopened]);
    given(matchDecider, [...game, left, locked, reopened]).when({ type: 'ProposeFill', lobby: cid, team: 1, now: t2 }).then([proposedFill]);
    given(matchDecider, [...game, left]).when({ type: 'SetBackfillAccepting', accepting: true, now: t2 }).thenNothing();
  });

  it('the fill joined before the lock: the lock only locks (the lobby stays in the game)', () => {
    const filled: MatchEvent = { type: 'MatchFilled', data: { matchId: M, lobbyId: 'c', team: 1, players: ['cid'], serverId: 's1', at: t2 } };
    const s = given(matchDecider, [...game, left, proposedFill, filled]).when({ type: 'SetBackfillAccepting', accepting: false, now: t2 })
      .then([{ type: 'MatchBackfillAccepting', data: { matchId: M, accepting: false, at: t2 } }]);
    expect(s).toMatchObject({ teams: [['ann'], ['cid']], locked: true });
  });

  it('outside a game a lock changes nothing', () => {
    given(matchDecider, formed).when({ type: 'SetBackfillAccepting', accepting: false, now: t2 }).thenNothing();
  });
});

describe('Match: a proposal read back from the store', () => {
  it('is the same proposal whatever order its keys come back in (jsonb reorders them): a repeat is a no-op', () => {
    const reordered = JSON.parse(JSON.stringify({ ...proposal, at: t0 }, Object.keys({ ...proposal, at: t0 }).sort()));
    reordered.lobbies = proposal.lobbies.map((l) => ({ queuedAt: l.queuedAt, rating: l.rating, players: l.players, ticket: l.ticket, lobbyId: l.lobbyId }));
    given(matchDecider, [{ type: 'MatchProposed', data: reordered }]).when({ type: 'ProposeMatch', proposal, now: t1 }).thenNothing();
  });
});

describe('Match: reservations landing late', () => {
  it("a fill's lobby reserved after the fill was given up is returned (it is not in the game)", () => {
    const duo = { ...proposal, lobbies: [lobby('a', ['ann']), lobby('b', ['bob'])], teams: [['ann'], ['bob']], allowBackfill: true, playersPerTeam: 1 };
    const game: MatchEvent[] = [
      { type: 'MatchProposed', data: { ...duo, at: t0 } }, reserved('a'), reserved('b'), { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, at: t1 } },
      requested(1), { type: 'MatchServerAssigned', data: { matchId: M, serverId: 's1', at: t1 } },
      { type: 'MatchLobbyLeft', data: { matchId: M, lobbyId: 'b', at: t1 } },
      { type: 'MatchFillProposed', data: { matchId: M, lobby: lobby('c', ['cid']), team: 1, at: t1 } },
      { type: 'MatchFillAborted', data: { matchId: M, lobbyId: 'c', reason: 'x', at: t1 } },
    ];
    given(matchDecider, game).when({ type: 'ReserveLobby', lobbyId: 'c', now: t2 }).then([{ type: 'MatchReservationReturned', data: { matchId: M, lobbyId: 'c', at: t2 } }]);
  });
});
