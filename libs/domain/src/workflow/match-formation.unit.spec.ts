import { LobbyEvent } from '../lobby';
import { matchDecider, MatchEvent, MatchProposal } from '../matchmaking/match';
import { givenWorkflow } from './testing';
import {
  CONFIRMATION_GRACE_MS, FORMATION_DEADLINE_MS, matchFormationWorkflow as wf, MatchFormationEvent, matchFoundKey, SERVER_START_DEADLINE_MS, SERVER_START_TIMEOUT, STRAY_SWEEP_MS,
} from './match-formation';
import { lobbyQueueWorkflow } from './lobby-queue';
import { backfillRosterWorkflow } from './backfill-roster';

const t0 = '2026-11-24T10:00:00.000Z';
const t1 = '2026-11-24T10:00:01.000Z';
const M = 'm1';
const proposal: MatchProposal = {
  matchId: M, projectId: 'p1', config: 'ranked', mode: 'duel', region: 'eu-west',
  lobbies: [{ lobbyId: 'a', ticket: 2, players: ['ann'], rating: 1000, queuedAt: t0 }, { lobbyId: 'b', ticket: 5, players: ['bob'], rating: 1010, queuedAt: t0 }],
  teams: [['ann'], ['bob']], requireConfirmation: false, confirmationTimeoutMs: 15_000,
};
const proposed: MatchEvent = { type: 'MatchProposed', data: { ...proposal, at: t0 } };
const formed: MatchEvent = { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, at: t1 } };
const lobbyTarget = (id: string) => ({ aggregate: 'lobby', id, projectId: 'p1' });
const matchTarget = { aggregate: 'match', id: M, projectId: null };
const after = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const formationDue = { type: 'MatchFormationDue' as const, data: { matchId: M, at: after(t0, FORMATION_DEADLINE_MS) } };

describe('Match formation workflow', () => {
  it('a proposal reserves each lobby at the ticket matched, keyed by match and lobby, and sets the formation deadline', () => {
    givenWorkflow(wf).when(proposed).then([
      { kind: 'command', target: { request: 'ReserveMatchLobby', projectId: null }, command: { type: 'ReserveMatchLobby', matchId: M, lobbyId: 'a', ticket: 2, now: t0 }, key: 'match:m1:reserve:a' },
      { kind: 'command', target: { request: 'ReserveMatchLobby', projectId: null }, command: { type: 'ReserveMatchLobby', matchId: M, lobbyId: 'b', ticket: 5, now: t0 }, key: 'match:m1:reserve:b' },
      { kind: 'timer', id: 'match-formation:m1', at: formationDue.data.at, then: formationDue },
    ]);
  });

  it('a match still reserving at its formation deadline is aborted; formed (or over) by then, the deadline does nothing', () => {
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when(formationDue as MatchFormationEvent).then([
      { kind: 'command', target: matchTarget, command: { type: 'AbortMatch', reason: 'formation_timeout', now: formationDue.data.at }, key: 'match:m1:formation-timeout' },
    ]);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed]).when(formationDue as MatchFormationEvent).thenNothing();
    const aborted: MatchEvent = { type: 'MatchAborted', data: { matchId: M, reason: 'ticket_changed', release: ['a'], at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, aborted]).when(formationDue as MatchFormationEvent).thenNothing();
    // an abort releases the lobbies reserved and clears both deadlines
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when(aborted).then([
      { kind: 'cancel-timer', id: 'match-formation:m1' },
      { kind: 'cancel-timer', id: 'match-server:m1' },
      { kind: 'command', target: lobbyTarget('a'), command: { type: 'ReleaseFromMatch', matchId: M, requeue: true, reason: 'declined', error: null, now: t1 }, key: 'match:m1:a:release' },
    ]);
  });

  it('a server start not answered by its deadline fails that attempt (the decider ignores it for any other attempt); an answer clears the deadline', () => {
    const requested: MatchEvent = { type: 'MatchServerRequested', data: { matchId: M, attempt: 1, at: t1 } };
    const due = { type: 'MatchServerStartDue', data: { matchId: M, attempt: 1, at: after(t1, SERVER_START_DEADLINE_MS) } } as MatchFormationEvent;
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested]).when(due).then([
      { kind: 'command', target: matchTarget, command: { type: 'FailServerStart', attempt: 1, error: 'server_start_timeout', now: after(t1, SERVER_START_DEADLINE_MS) }, key: 'match:m1:start-timeout:1' },
    ]);
    const failed: MatchEvent = { type: 'MatchServerStartFailed', data: { matchId: M, attempt: 1, error: 'refused', at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested]).when(failed).then([
      { kind: 'cancel-timer', id: 'match-server:m1' },
      { kind: 'command', target: matchTarget, command: { type: 'RequestServer', now: t1 }, key: 'match:m1:server:2' },
    ]);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested, failed]).when(due).thenNothing();
    // The Match decider asks for the next attempt in the failure's own decision: nothing to request here.
    const retried: MatchEvent = { type: 'MatchServerStartFailed', data: { matchId: M, attempt: 1, error: 'refused', serverRequested: true, at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested]).when(retried).then([{ kind: 'cancel-timer', id: 'match-server:m1' }]);
    const assigned: MatchEvent = { type: 'MatchServerAssigned', data: { matchId: M, serverId: 's1', at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested, assigned]).when(due).thenNothing();
  });

  it("the lobby's reservation is not the workflow's to carry: the dispatcher that made it told the match (a late one comes back as MatchReservationReturned)", () => {
    const reserved: LobbyEvent = { type: 'LobbyReserved', data: { lobbyId: 'a', matchId: M, ticket: 2, at: t1 } };
    expect(wf.route(reserved)).toEqual([]);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when({ type: 'MatchReservationReturned', data: { matchId: M, lobbyId: 'a', at: t1 } }).then([
      { kind: 'command', target: lobbyTarget('a'), command: { type: 'ReleaseFromMatch', matchId: M, requeue: true, reason: 'declined', error: null, now: t1 }, key: 'match:m1:a:release' },
    ]);
  });

  it('a reservation returned by the match (it landed after the match fell through) sends the lobby back to the queue', () => {
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when({ type: 'MatchReservationReturned', data: { matchId: M, lobbyId: 'a', at: t1 } }).then([
      { kind: 'command', target: lobbyTarget('a'), command: { type: 'ReleaseFromMatch', matchId: M, requeue: true, reason: 'declined', error: null, now: t1 }, key: 'match:m1:a:release' },
    ]);
  });

  it('formed without confirmation: every lobby is told; the server was requested by the same decision (or, stored before that, is requested here)', () => {
    const found = ['a', 'b'].map((l) => ({ kind: 'command', target: lobbyTarget(l), command: { type: 'MatchFound', matchId: M, confirmationDeadline: null, now: t1 }, key: `match:m1:${l}:found` }));
    const formedAsking: MatchEvent = { type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, serverRequested: true, at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when(formedAsking).then([{ kind: 'cancel-timer', id: 'match-formation:m1' }, ...found]);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when(formed).then([
      { kind: 'cancel-timer', id: 'match-formation:m1' },
      ...found,
      { kind: 'command', target: matchTarget, command: { type: 'RequestServer', now: t1 }, key: 'match:m1:server:1' },
    ]);
  });

  it('formed by a reservation whose dispatcher told the lobbies (lobbiesTold): no MatchFound from here, the timers as ever', () => {
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when({ type: 'MatchFormed', data: { matchId: M, confirmationDeadline: null, serverRequested: true, lobbiesTold: true, at: t1 } })
      .then([{ kind: 'cancel-timer', id: 'match-formation:m1' }]);
    const deadline = after(t1, 15_000);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when({ type: 'MatchFormed', data: { matchId: M, confirmationDeadline: deadline, lobbiesTold: true, at: t1 } }).then([
      { kind: 'cancel-timer', id: 'match-formation:m1' },
      { kind: 'timer', id: 'match-confirmation:m1', at: after(deadline, CONFIRMATION_GRACE_MS), then: { type: 'MatchConfirmationDue', data: { matchId: M, at: after(deadline, CONFIRMATION_GRACE_MS) } } },
    ]);
    // the key the dispatcher sends each MatchFound with is the workflow's own (a lobby applies it once)
    expect(matchFoundKey(M, 'a')).toBe('match:m1:a:found');
  });

  it('confirmed by every lobby: each is told it is ready; the server was requested by the same decision (or, stored before that, is requested here)', () => {
    const ready = [
      { kind: 'cancel-timer', id: 'match-confirmation:m1' },
      ...['a', 'b'].map((l) => ({ kind: 'command', target: lobbyTarget(l), command: { type: 'MatchReady', matchId: M, now: t1 }, key: `match:m1:${l}:ready` })),
    ];
    const confirmedAsking: MatchEvent = { type: 'MatchConfirmed', data: { matchId: M, serverRequested: true, at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when(confirmedAsking).then(ready);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when({ type: 'MatchConfirmed', data: { matchId: M, at: t1 } }).then([
      ...ready,
      { kind: 'command', target: matchTarget, command: { type: 'RequestServer', now: t1 }, key: 'match:m1:server:1' },
    ]);
  });

  it('each server attempt is its own start (a retried dispatch of one attempt is the same start); the server goes to every lobby', () => {
    const requested: MatchEvent = { type: 'MatchServerRequested', data: { matchId: M, attempt: 2, at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed]).when(requested).then([
      { kind: 'command', target: { request: 'StartMatchServer', projectId: null }, command: { type: 'StartMatchServer', matchId: M, attempt: 2, now: t1 }, key: 'match:m1:start:2' },
      { kind: 'timer', id: 'match-server:m1', at: after(t1, SERVER_START_DEADLINE_MS), then: { type: 'MatchServerStartDue', data: { matchId: M, attempt: 2, at: after(t1, SERVER_START_DEADLINE_MS) } } },
    ]);
    const server = { instance_id: 's1', status: 'running' };
    const assigned: MatchEvent = { type: 'MatchServerAssigned', data: { matchId: M, serverId: 's1', server, at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested]).when(assigned).then([
      { kind: 'cancel-timer', id: 'match-server:m1' },
      ...['a', 'b'].map((l) => ({ kind: 'command', target: lobbyTarget(l), command: { type: 'ServerAssigned', server, now: t1 }, key: `match:m1:${l}:server` })),
      // attempt 1 timed out: a server it may have made after all is stopped (now, and once more later)
      { kind: 'command', target: { request: 'StopStrayMatchServers', projectId: null }, command: { type: 'StopStrayMatchServers', matchId: M, now: t1 }, key: 'match:m1:strays' },
      { kind: 'timer', id: 'match-strays:m1', at: after(t1, STRAY_SWEEP_MS), then: { type: 'MatchStraySweepDue', data: { matchId: M, at: after(t1, STRAY_SWEEP_MS) } } },
    ]);
    // the first attempt answered: no stray to look for
    const first: MatchEvent = { type: 'MatchServerRequested', data: { matchId: M, attempt: 1, at: t1 } };
    const intents = wf.react(wf.evolve(givenWorkflow(wf, [proposed, formed, first]).state, assigned), assigned);
    expect(intents.filter((i) => i.kind === 'timer' || (i.kind === 'command' && i.command.type === 'StopStrayMatchServers'))).toEqual([]);
  });

  it('a match that fell through after asking for a server stops its stray servers at once and once more later (a crashed start made one it never got); one that never asked, nothing', () => {
    const requested: MatchEvent = { type: 'MatchServerRequested', data: { matchId: M, attempt: 1, at: t1 } };
    const aborted: MatchEvent = { type: 'MatchAborted', data: { matchId: M, reason: 'cancelled', release: ['a'], at: t1 } };
    const sweep = { kind: 'command', target: { request: 'StopStrayMatchServers', projectId: null }, command: { type: 'StopStrayMatchServers', matchId: M, now: t1 }, key: 'match:m1:strays' };
    const due = { type: 'MatchStraySweepDue' as const, data: { matchId: M, at: after(t1, STRAY_SWEEP_MS) } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested]).when(aborted).then([
      { kind: 'cancel-timer', id: 'match-formation:m1' },
      { kind: 'cancel-timer', id: 'match-server:m1' },
      { kind: 'command', target: lobbyTarget('a'), command: { type: 'ReleaseFromMatch', matchId: M, requeue: true, reason: 'declined', error: null, now: t1 }, key: 'match:m1:a:release' },
      sweep,
      { kind: 'timer', id: 'match-strays:m1', at: due.data.at, then: due },
    ]);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, formed, requested, aborted]).when(due as MatchFormationEvent).then([
      { kind: 'command', target: { request: 'StopStrayMatchServers', projectId: null }, command: { type: 'StopStrayMatchServers', matchId: M, now: due.data.at }, key: 'match:m1:strays:late' },
    ]);
    // failed when its last start timed out: that start may have made a server
    const timedOut: MatchEvent = { type: 'MatchFailed', data: { matchId: M, error: SERVER_START_TIMEOUT, lobbies: ['a', 'b'], at: t1 } };
    const onFail = wf.react(wf.evolve(givenWorkflow(wf, [proposed, formed, requested]).state, timedOut), timedOut);
    expect(onFail.slice(-2)).toEqual([sweep, { kind: 'timer', id: 'match-strays:m1', at: due.data.at, then: due }]);
    // aborted while reserving (no server asked for): no sweep
    const early = wf.react(wf.evolve(givenWorkflow(wf, [proposed]).state, aborted), aborted);
    expect(early.filter((i) => i.kind === 'timer' || (i.kind === 'command' && i.command.type === 'StopStrayMatchServers'))).toEqual([]);
  });

  it('a match whose every start was answered looks for no stray server: a refused start made none, an assigned one is its own; a start that timed out may have', () => {
    const req = (attempt: number): MatchEvent => ({ type: 'MatchServerRequested', data: { matchId: M, attempt, at: t1 } });
    const refused = (attempt: number, error = 'ready build "v9" not found'): MatchEvent => ({ type: 'MatchServerStartFailed', data: { matchId: M, attempt, error, at: t1 } });
    const sweeps = (intents: { kind: string; command?: { type: string } }[]) => intents.filter((i) => i.kind === 'timer' || i.command?.type === 'StopStrayMatchServers').length;
    const failed = (error: string): MatchEvent => ({ type: 'MatchFailed', data: { matchId: M, error, lobbies: ['a', 'b'], at: t1 } });
    const assigned: MatchEvent = { type: 'MatchServerAssigned', data: { matchId: M, serverId: 's2', server: { instance_id: 's2' }, at: t1 } };
    const refusedThrice = [proposed, formed, req(1), refused(1), req(2), refused(2), req(3)];
    const lastRefused = failed('ready build "v9" not found');
    expect(sweeps(wf.react(wf.evolve(givenWorkflow(wf, refusedThrice).state, lastRefused), lastRefused))).toBe(0);
    expect(sweeps(wf.react(wf.evolve(givenWorkflow(wf, [proposed, formed, req(1), refused(1), req(2)]).state, assigned), assigned))).toBe(0);
    // one of them timed out: swept, whether the match then failed or got a later attempt's server
    const timedOutFirst = [proposed, formed, req(1), refused(1, SERVER_START_TIMEOUT), req(2), refused(2), req(3)];
    expect(sweeps(wf.react(wf.evolve(givenWorkflow(wf, timedOutFirst).state, failed('no capacity')), failed('no capacity')))).toBe(2);
    expect(sweeps(wf.react(wf.evolve(givenWorkflow(wf, [proposed, formed, req(1), refused(1, SERVER_START_TIMEOUT), req(2)]).state, assigned), assigned))).toBe(2);
  });

  it("a lobby leaving on its own is told to the match; once the match is over, nothing", () => {
    const cancelled: LobbyEvent = { type: 'MatchmakingEnded', data: { lobbyId: 'b', matchId: M, reason: 'cancelled', error: null, at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when(cancelled).then([
      { kind: 'command', target: matchTarget, command: { type: 'DropLobby', lobbyId: 'b', reason: 'cancelled', now: t1 }, key: 'match:m1:dropped:b:MatchmakingEnded' },
    ]);
    const failed: MatchEvent = { type: 'MatchFailed', data: { matchId: M, error: 'boom', lobbies: ['a', 'b'], at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed, failed]).when(cancelled).thenNothing();
    expect(wf.route({ type: 'MatchmakingEnded', data: { lobbyId: 'b', matchId: M, reason: 'failed', error: 'boom', at: t1 } })).toEqual([]);
  });

  it('a failed match sends every lobby back to waiting with the error; the last lobby out stops the server', () => {
    const failed: MatchEvent = { type: 'MatchFailed', data: { matchId: M, error: 'no capacity', lobbies: ['a', 'b'], at: t1 } };
    const intents = wf.react(wf.evolve(givenWorkflow(wf, [proposed]).state, failed), failed);
    expect(intents.map((i) => (i.kind === 'command' ? i.command : i))).toEqual([{ kind: 'cancel-timer', id: 'match-server:m1' }, ...['a', 'b'].map(() => ({ type: 'ReleaseFromMatch', matchId: M, requeue: false, reason: 'failed', error: 'no capacity', now: t1 }))]);
    const completed: MatchEvent = { type: 'MatchCompleted', data: { matchId: M, reason: 'all_left', serverId: 's1', remaining: [], stopServer: true, at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, [proposed]).when(completed).then([
      { kind: 'command', target: { request: 'StopMatchServer', projectId: null }, command: { type: 'StopMatchServer', matchId: M, serverId: 's1', now: t1 }, key: 'match:m1:stop' },
    ]);
  });
});

describe('Lobby queue workflow (search timeout)', () => {
  const started: LobbyEvent = {
    type: 'MatchmakingStarted',
    data: { lobbyId: 'a', by: 'ann', timeoutAt: '2026-11-24T10:02:00.000Z', queue: { projectId: 'p1', config: 'ranked', mode: 'duel', ticket: 1, queuedAt: t0, region: 'eu', players: [] }, at: t0 },
  };
  const due = { type: 'LobbyQueueTimedOut' as const, data: { lobbyId: 'a', startedAt: t0, at: '2026-11-24T10:02:00.000Z' } };
  it('sets a timer at the timeout; when due it sends QueueTimeout for that search', () => {
    givenWorkflow(lobbyQueueWorkflow).when(started).then([{ kind: 'timer', id: 'lobby-queue:a', at: due.data.at, then: due }]);
    givenWorkflow(lobbyQueueWorkflow, [started]).when(due).then([
      { kind: 'command', target: { aggregate: 'lobby', id: 'a', projectId: null }, command: { type: 'QueueTimeout', startedAt: t0, now: due.data.at }, key: `lobby-queue:a:${t0}:timeout` },
    ]);
  });
  it('an ended search cancels it; a timer that fires in a race with the end still asks, and the lobby decider refuses it (lobby/matchmaking.unit.spec)', () => {
    const ended: LobbyEvent = { type: 'MatchmakingEnded', data: { lobbyId: 'a', matchId: null, reason: 'cancelled', error: null, at: t1 } };
    givenWorkflow(lobbyQueueWorkflow, [started]).when(ended).then([{ kind: 'cancel-timer', id: 'lobby-queue:a' }]);
    for (const event of [{ ...ended, type: 'LobbyDeleted' }, { ...ended, type: 'GameEnded' }] as LobbyEvent[]) {
      givenWorkflow(lobbyQueueWorkflow, [started]).when(event).then([{ kind: 'cancel-timer', id: 'lobby-queue:a' }]);
    }
    givenWorkflow(lobbyQueueWorkflow, [started, ended]).when(due).then([
      { kind: 'command', target: { aggregate: 'lobby', id: 'a', projectId: null }, command: { type: 'QueueTimeout', startedAt: t0, now: due.data.at }, key: `lobby-queue:a:${t0}:timeout` },
    ]);
  });
  it('keeps no state (the runner reads and writes none for it): whatever came before, an event gives the same intents', () => {
    const ended: LobbyEvent = { type: 'MatchmakingEnded', data: { lobbyId: 'a', matchId: null, reason: 'matched', error: null, at: t1 } };
    const again: LobbyEvent = { ...started, data: { ...(started.data as object), queue: { ...(started.data as { queue: object }).queue, queuedAt: t1 } } } as LobbyEvent;
    const histories: LobbyEvent[][] = [[], [started], [started, ended], [started, ended, again]];
    expect(lobbyQueueWorkflow.stateless).toBe(true);
    for (const event of [started, again, ended, due] as never[]) {
      const fromScratch = givenWorkflow(lobbyQueueWorkflow).when(event);
      expect(fromScratch.state).toBeNull();
      for (const history of histories) givenWorkflow(lobbyQueueWorkflow, history).when(event).then(lobbyQueueWorkflow.react(null, event));
    }
  });
});

describe('Match workflows: a match starts with its proposal', () => {
  // The Match decider proposes only a match that does not exist (match.unit.spec: a second ProposeMatch is a
  // no-op or a conflict), so MatchProposed is the first event of its instance: the state before it is initial.
  it('MatchProposed starts a match-formation and a backfill-roster instance; later events do not', () => {
    const formed = { type: 'MatchFormed', data: { matchId: M } } as MatchFormationEvent;
    expect(wf.startsOver?.(proposed)).toBe(true);
    expect(wf.startsOver?.(formed)).toBe(false);
    expect(backfillRosterWorkflow.startsOver?.(proposed as never)).toBe(true);
    expect(backfillRosterWorkflow.startsOver?.(formed as never)).toBe(false);
  });
});

describe('Match formation workflow: backfill', () => {
  const server = { instance_id: 's1', status: 'running' };
  const game: MatchEvent[] = [
    { type: 'MatchProposed', data: { ...proposal, allowBackfill: true, playersPerTeam: 1, at: t0 } }, formed,
    { type: 'MatchServerRequested', data: { matchId: M, attempt: 1, at: t1 } }, { type: 'MatchServerAssigned', data: { matchId: M, serverId: 's1', server, at: t1 } },
  ];
  const fill = { lobbyId: 'c', ticket: 4, players: ['cid'], rating: 1005, queuedAt: t0 };

  it("a proposed fill reserves its lobby at its ticket; the filled lobby is found and given the running server; the game's roster is updated", () => {
    givenWorkflow<MatchFormationEvent, any, any>(wf, game).when({ type: 'MatchFillProposed', data: { matchId: M, lobby: fill, team: 1, at: t1 } }).then([
      { kind: 'command', target: { request: 'ReserveMatchLobby', projectId: null }, command: { type: 'ReserveMatchLobby', matchId: M, lobbyId: 'c', ticket: 4, now: t1 }, key: 'match:m1:fill:c:4:reserve' },
    ]);
    const left: MatchEvent = { type: 'MatchLobbyLeft', data: { matchId: M, lobbyId: 'b', at: t1 } };
    givenWorkflow<MatchFormationEvent, any, any>(wf, game).when(left).then([
      { kind: 'command', target: { request: 'UpdateMatchRoster', projectId: null }, command: { type: 'UpdateMatchRoster', matchId: M, version: 1, now: t1 }, key: 'match:m1:roster:1' },
    ]);
    givenWorkflow<MatchFormationEvent, any, any>(wf, [...game, left]).when({ type: 'MatchFilled', data: { matchId: M, lobbyId: 'c', team: 1, players: ['cid'], serverId: 's1', at: t1 } }).then([
      { kind: 'command', target: lobbyTarget('c'), command: { type: 'MatchFound', matchId: M, confirmationDeadline: null, now: t1 }, key: 'match:m1:c:found' },
      { kind: 'command', target: lobbyTarget('c'), command: { type: 'ServerAssigned', server, now: t1 }, key: 'match:m1:c:server' },
      { kind: 'command', target: { request: 'UpdateMatchRoster', projectId: null }, command: { type: 'UpdateMatchRoster', matchId: M, version: 2, now: t1 }, key: 'match:m1:roster:2' },
    ]);
  });

  it('the backfill record hears each roster change with the slots freed and not filled, and the teams after it', () => {
    const left: MatchEvent = { type: 'MatchLobbyLeft', data: { matchId: M, lobbyId: 'b', at: t1 } };
    givenWorkflow(backfillRosterWorkflow, game).when(left).then([
      { kind: 'command', target: { aggregate: 'backfill', id: M, projectId: 'p1' }, command: { type: 'ChangeRoster', matchId: M, freeSlots: 1, reason: 'left', roster: [['ann'], []], now: t1 }, key: 'backfill-roster:m1:1' },
    ]);
    givenWorkflow(backfillRosterWorkflow, [...game, left]).when({ type: 'MatchFilled', data: { matchId: M, lobbyId: 'c', team: 1, players: ['cid'], serverId: 's1', at: t1 } }).then([
      { kind: 'command', target: { aggregate: 'backfill', id: M, projectId: 'p1' }, command: { type: 'ChangeRoster', matchId: M, freeSlots: 0, reason: 'filled', roster: [['ann'], ['cid']], now: t1 }, key: 'backfill-roster:m1:2' },
    ]);
  });

  it("the roster's state is the roster alone: a match's formation, server attempts and a failure leave it as it was (nothing to store)", () => {
    const roster = givenWorkflow(backfillRosterWorkflow, [proposed]);
    for (const e of [
      { type: 'MatchLobbyReserved', data: { matchId: M, lobbyId: 'a', at: t1 } }, formed,
      { type: 'MatchServerRequested', data: { matchId: M, attempt: 1, at: t1 } },
      { type: 'MatchServerStartFailed', data: { matchId: M, attempt: 1, error: 'no build', at: t1 } },
      { type: 'MatchFailed', data: { matchId: M, error: 'no build', lobbies: ['a', 'b'], at: t1 } },
    ] as MatchEvent[]) expect(roster.when(e).thenNothing()).toBe(roster.state);
    // the game's start is stored: its teams are what a later leave or fill is counted against
    const assigned = roster.when({ type: 'MatchServerAssigned', data: { matchId: M, serverId: 's1', at: t1 } }).thenNothing();
    expect(assigned).toEqual({ projectId: 'p1', lobbies: [['a', ['ann']], ['b', ['bob']]], teams: [['ann'], ['bob']], live: true, initial: [1, 1], changes: 0 });
  });

  it('a state an earlier version stored (the whole match) goes on as its roster', () => {
    const match = game.reduce((s, e) => matchDecider.evolve(s, e), matchDecider.initialState);
    const stored = { match, initial: [1, 1], changes: 0 } as never;
    const left: MatchEvent = { type: 'MatchLobbyLeft', data: { matchId: M, lobbyId: 'b', at: t1 } };
    const next = backfillRosterWorkflow.evolve(stored, left);
    expect(backfillRosterWorkflow.react(next, left)).toEqual([
      { kind: 'command', target: { aggregate: 'backfill', id: M, projectId: 'p1' }, command: { type: 'ChangeRoster', matchId: M, freeSlots: 1, reason: 'left', roster: [['ann'], []], now: t1 }, key: 'backfill-roster:m1:1' },
    ]);
  });
});

