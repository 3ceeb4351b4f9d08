// The workflow runner on real PostgreSQL with the real event store: intents decided from the store are
// dispatched with their keys, timers fire by the injected clock, a runner killed mid-stream and replaced
// loses no intent and doubles none beyond its key (timers that fell due meanwhile fire after the
// restart), a second runner stands by while one leads, and one bad event is parked, not a stop.
import { CommandIntent, Intent, LobbyEvent, lobbyServerWorkflow, lobbyStream, timeAfter, Workflow } from '@spawnpoint/domain';
import { readModelsPool } from '@spawnpoint/read-models';
import { captureLogs } from '../../../logging/src/testing';
import { createProjectionTestBed, ProjectionTestBed } from '../../../../test/support/projections';
import { eventually } from '../../../../test/support/http';
import { listParked } from '../projections/parked-events';
import { IntentDispatcher, WorkflowRunner, WorkflowRunnerOptions } from './workflow-runner';
import { intentsDone, loadCheckpoint, noChanges, timerSlot, writeChanges } from './workflow-tables';

const t0 = Date.parse('2026-11-21T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const LOBBY_LAUNCH_TIMEOUT_MS = 60_000;

/**
 * The runner's test workflow, on lobby events: GameStarting sends StartLobbyServer (keyed by lobby and
 * attempt) and sets a timeout; an assignment cancels it; the timeout sends a stop. (The product's
 * lobby-launch is subtler; this one keeps what the runner does visible in every step.)
 */
type TimedOut = { type: 'TimedOut'; data: { lobbyId: string; attempt: number; at: string } };
const launches: Workflow<LobbyEvent | TimedOut, { attempt: number; assigned: boolean }, Intent<{ type: string; [k: string]: unknown }, TimedOut>> = {
  name: 'launches',
  categories: ['lobby'],
  initialState: { attempt: 0, assigned: false },
  route: (e) => [e.data.lobbyId],
  evolve: (s, e) => (e.type === 'GameStarting' ? { attempt: s.attempt + 1, assigned: false } : e.type === 'LobbyServerAssigned' ? { ...s, assigned: true } : s),
  react(s, e) {
    const id = e.data.lobbyId;
    const key = `lobby-launch:${id}:${s.attempt}`;
    if (e.type === 'GameStarting') {
      const at = timeAfter(e.data.at, LOBBY_LAUNCH_TIMEOUT_MS);
      return [
        { kind: 'command', target: { request: 'StartLobbyServer', projectId: null }, command: { type: 'StartLobbyServer', lobbyId: id, attempt: s.attempt }, key },
        { kind: 'timer', id: `timeout:${id}`, at, then: { type: 'TimedOut', data: { lobbyId: id, attempt: s.attempt, at } } },
      ];
    }
    if (e.type === 'LobbyServerAssigned') return [{ kind: 'cancel-timer', id: `timeout:${id}` }];
    if (e.type === 'TimedOut' && !s.assigned && e.data.attempt === s.attempt) {
      return [{ kind: 'command', target: { aggregate: 'lobby', id, projectId: null }, command: { type: 'ServerStopped', instanceId: '' }, key: `${key}:timed-out` }];
    }
    return [];
  },
};

function recorder() {
  const sent: CommandIntent[] = [];
  const dispatch: IntentDispatcher = async (intent) => void sent.push(intent);
  const keys = (type: string) => sent.filter((i) => i.command.type === type).map((i) => i.key).sort();
  return { sent, dispatch, keys };
}

describe('WorkflowRunner', () => {
  let bed: ProjectionTestBed;
  let clock: number;
  const now = () => new Date(clock);
  const runners: WorkflowRunner[] = [];
  const runner = (dispatch: IntentDispatcher, workflows = [launches as never], options: WorkflowRunnerOptions = {}) => {
    const r = new WorkflowRunner(bed.store, bed.models, workflows, dispatch, { now, pollMs: 60_000, stopGraceMs: 100, poisonBackoffMs: 10, ...options });
    runners.push(r);
    return r;
  };

  async function lobbyStarts(ids: string[], at: number, assigned: string[] = []): Promise<void> {
    for (const id of ids) {
      const events: LobbyEvent[] = [
        { type: 'LobbyCreated', data: { lobbyId: id, projectId: 'p1', config: 'duel', code: null, hostId: 'h', name: null, maxPlayers: 2, region: 'eu-west', isPrivate: false, allowLateJoin: false, settings: {}, hostState: {}, at: iso(at) } },
        { type: 'GameStarting', data: { lobbyId: id, by: 'h', at: iso(at) } },
      ];
      if (assigned.includes(id)) events.push({ type: 'LobbyServerAssigned', data: { lobbyId: id, server: { instance_id: `s-${id}` }, at: iso(at + 1000) } });
      await bed.store.appendToStream(lobbyStream(id), events, 'no_stream');
    }
  }

  /** Counts the statements matching `pattern` sent through the read models' pool (each still runs). */
  function counting(pattern: RegExp) {
    const pool = readModelsPool(bed.models);
    const query = pool.query;
    const counter = { n: 0, restore: () => void (pool.query = query) };
    pool.query = ((config: unknown, ...rest: unknown[]) => {
      const text = typeof config === 'string' ? config : (config as { text?: string })?.text;
      if (text && pattern.test(text)) counter.n++;
      return (query as (...args: unknown[]) => unknown).call(pool, config, ...rest);
    }) as typeof pool.query;
    return counter;
  }

  const outbox = async () => (await readModelsPool(bed.models).query('SELECT intent_key FROM workflow_intents')).rows.map((r) => r.intent_key as string);
  const timers = async () => (await readModelsPool(bed.models).query('SELECT key FROM workflow_timers ORDER BY key')).rows.map((r) => r.key as string);

  beforeEach(async () => {
    bed = await createProjectionTestBed('wf');
    clock = t0;
  });

  afterEach(async () => {
    for (const r of runners.splice(0)) await r.stop();
    await bed.close();
  });

  it('dispatches what a workflow decides, with its key, and fires its timer when the clock reaches it', async () => {
    const { dispatch, keys } = recorder();
    const r = runner(dispatch);
    await r.start();
    await lobbyStarts(['l1', 'l2'], t0, ['l2']);
    await r.idle();
    expect(keys('StartLobbyServer')).toEqual(['lobby-launch:l1:1', 'lobby-launch:l2:1']);
    expect(await timers()).toEqual(['l1']); // l2's server was assigned: its timeout is cancelled

    clock = t0 + LOBBY_LAUNCH_TIMEOUT_MS - 1;
    await r.tick();
    expect(keys('ServerStopped')).toEqual([]);
    clock = t0 + LOBBY_LAUNCH_TIMEOUT_MS;
    await r.tick();
    expect(keys('ServerStopped')).toEqual(['lobby-launch:l1:1:timed-out']);
    expect(await timers()).toEqual([]);
    expect(await outbox()).toEqual([]);
  });

  it('events that concern no instance cost no transaction: the tick saves the checkpoint past them, and reading them again changes nothing', async () => {
    const { sent, dispatch } = recorder();
    const pool = readModelsPool(bed.models);
    const r = runner(dispatch, [lobbyServerWorkflow as never]);
    await r.start();
    const before = await loadCheckpoint(pool, 'lobby-server');
    await lobbyStarts(['q1', 'q2'], t0); // no server assigned: the lobby-server workflow routes none of these
    await r.idle();
    expect((await pool.query('SELECT count(*)::int AS n FROM workflow_states')).rows[0].n).toBe(0);
    expect(await loadCheckpoint(pool, 'lobby-server')).toBe(before);
    await r.tick();
    const head = await bed.store.headPosition(['lobby', 'server']);
    expect(await loadCheckpoint(pool, 'lobby-server')).toBe(head);

    await r.stop();
    const again = runner(dispatch, [lobbyServerWorkflow as never]);
    await again.start();
    await again.idle();
    expect(sent).toEqual([]);
    expect(await loadCheckpoint(pool, 'lobby-server')).toBe(head);
  });

  it('killed mid-stream and replaced: no intent lost, none doubled beyond its key, timers due in the downtime fire after', async () => {
    const first = recorder();
    let hung = 0;
    // The first runner "crashes" inside its 8th dispatch: the command went out, its outbox row was never deleted.
    const crashing: IntentDispatcher = (intent, origin) => (first.sent.length === 7 && hung++ === 0
      ? (first.sent.push(intent), new Promise<void>(() => undefined))
      : first.dispatch(intent, origin));
    const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `l${from + i}`);
    const a = runner(crashing, [launches as never], { slowWarnMs: 300 });
    await a.start();
    await lobbyStarts(ids(1, 10), t0, ['l1', 'l2', 'l3']);

    // A second runner on the same database stands by while the first leads.
    const second = recorder();
    const b = runner(second.dispatch);
    await b.start();
    await b.tick();
    expect(second.sent).toEqual([]);

    await lobbyStarts(ids(11, 20), t0);
    // It "crashes" only once inside its 8th dispatch (on a slow machine it may not be there yet).
    for (const until = Date.now() + 10_000; first.sent.length < 8 && Date.now() < until;) await new Promise((r) => setTimeout(r, 10));
    const logs = captureLogs();
    await a.stop(); // mid-stream: events still arriving, one dispatch in flight
    // The dispatch it abandoned leaves nothing running: no slow-work log, no failure written after the stop.
    const afterStop = logs.lines.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(logs.records().slice(afterStop).filter((r) => r.component === 'workflows').map((r) => r.msg)).toEqual([]);
    logs.restore();
    clock = t0 + LOBBY_LAUNCH_TIMEOUT_MS + 1_000; // every launch timeout of l1..l20 falls due in the downtime
    await lobbyStarts(ids(21, 25), clock);

    await b.tick(); // takes the lead and reads on from the first runner's checkpoint
    await b.idle();
    await b.tick(); // the timers that fell due meanwhile

    const all = [...first.sent, ...second.sent];
    const starts = all.filter((i) => i.command.type === 'StartLobbyServer').map((i) => i.key);
    expect([...new Set(starts)].sort()).toEqual(ids(1, 25).map((id) => `lobby-launch:${id}:1`).sort());
    const counts = new Map<string, number>();
    for (const i of all) counts.set(i.key, (counts.get(i.key) ?? 0) + 1);
    const doubled = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
    // Only the dispatch the crash interrupted is sent again (same key: the services answer it once).
    expect(doubled).toEqual([first.sent[7].key]);
    expect(Math.max(...counts.values())).toBe(2);
    // Lobbies without a server timed out exactly once each, after the restart; the new ones are not due yet.
    expect(second.keys('ServerStopped')).toEqual(ids(4, 20).map((id) => `lobby-launch:${id}:1:timed-out`).sort());
    expect(first.keys('ServerStopped')).toEqual([]);
    expect(await timers()).toEqual(ids(21, 25).sort());
    expect(await outbox()).toEqual([]);
  });

  it('a first run folds the history already stored without sending its commands again, and keeps its timers', async () => {
    await lobbyStarts(['old1', 'old2'], t0, ['old2']);
    const { sent, dispatch, keys } = recorder();
    const r = runner(dispatch);
    await r.start();
    await r.idle();
    expect(sent).toEqual([]);
    expect(await timers()).toEqual(['old1']);
    await lobbyStarts(['new1'], t0);
    clock = t0 + LOBBY_LAUNCH_TIMEOUT_MS;
    await r.idle();
    await r.tick();
    expect(keys('StartLobbyServer')).toEqual(['lobby-launch:new1:1']);
    expect(keys('ServerStopped')).toEqual(['lobby-launch:new1:1:timed-out', 'lobby-launch:old1:1:timed-out']);
  });

  it('parks an event its workflow cannot decide and moves on', async () => {
    type E = { type: 'Tick'; data: { id: string; poison?: boolean; at: string } };
    const fragile: Workflow<E, number, CommandIntent> = {
      name: 'fragile', categories: ['tick'], initialState: 0,
      route: (e) => [e.data.id],
      evolve: (n, e) => {
        if (e.data.poison) throw new Error(`cannot decide ${e.data.id}`);
        return n + 1;
      },
      react: (n, e) => [{ kind: 'command', target: { aggregate: 'tick', id: e.data.id, projectId: null }, command: { type: 'Count' }, key: `${e.data.id}:${n}` }],
    };
    const { sent, dispatch } = recorder();
    const r = runner(dispatch, [fragile as never]);
    await r.start();
    for (const [id, poison] of [['a', false], ['b', true], ['c', false]] as const) {
      await bed.store.appendToStream(`tick-${id}`, [{ type: 'Tick', data: { id, poison, at: iso(t0) } }], 'no_stream');
    }
    await r.idle();
    expect(sent.map((i) => i.key)).toEqual(['a:1', 'c:1']);
    const parked = await listParked(bed.models, 'workflow:fragile');
    expect(parked).toMatchObject([{ stream_id: 'tick-b', event_type: 'Tick', attempts: 3 }]);
    expect(parked[0].error).toMatch(/cannot decide b/);
  });

  it('sends the intents it wrote without reading the outbox back; the tick, and a failed dispatch, read it', async () => {
    const { dispatch, keys } = recorder();
    let failures = 0;
    const r = runner(async (intent) => {
      if (failures-- > 0) throw new Error('servers unavailable');
      await dispatch(intent, { workflow: 'launches', instance: '' });
    });
    await r.start();
    await r.idle();
    const outboxReads = counting(/^SELECT .* FROM workflow_intents/s);
    try {
      await lobbyStarts(['l1', 'l2', 'l3'], t0);
      await r.idle();
      expect(keys('StartLobbyServer')).toEqual(['lobby-launch:l1:1', 'lobby-launch:l2:1', 'lobby-launch:l3:1']);
      expect(outboxReads.n).toBe(0);
      expect(await outbox()).toEqual([]);

      failures = 1; // l4's dispatch fails: its retry, and what follows it, are the outbox's to tell
      await lobbyStarts(['l4'], t0);
      await r.idle();
      expect(keys('StartLobbyServer')).not.toContain('lobby-launch:l4:1');
      clock = t0 + 10_000;
      await r.tick();
      expect(keys('StartLobbyServer')).toContain('lobby-launch:l4:1');
      expect(outboxReads.n).toBeGreaterThan(0);
      expect(await outbox()).toEqual([]);
    } finally {
      outboxReads.restore();
    }
  });

  it('the tick reads the outbox only when it may hold what the leader does not know, or 10 s after the last read', async () => {
    const { dispatch, keys } = recorder();
    const r = runner(dispatch);
    await r.start();
    await r.idle();
    const outboxReads = counting(/^SELECT .* FROM workflow_intents/s);
    try {
      await lobbyStarts(['l1', 'l2'], t0);
      await r.idle();
      clock = t0 + 9_000;
      await r.tick();
      await r.tick();
      expect(keys('StartLobbyServer')).toEqual(['lobby-launch:l1:1', 'lobby-launch:l2:1']);
      expect(outboxReads.n).toBe(0);
      // An intent only the outbox knows (as a crashed write's could be): the periodic read finds it.
      await readModelsPool(bed.models).query(`INSERT INTO workflow_intents (workflow, key, intent_key, intent) VALUES ('launches', 'l9', 'lobby-launch:l9:1', $1)`,
        [{ kind: 'command', target: { request: 'StartLobbyServer', projectId: null }, command: { type: 'StartLobbyServer', lobbyId: 'l9', attempt: 1 }, key: 'lobby-launch:l9:1' }]);
      await r.tick();
      expect(keys('StartLobbyServer')).not.toContain('lobby-launch:l9:1');
      clock = t0 + 10_000;
      await r.tick();
      expect(outboxReads.n).toBe(1);
      expect(keys('StartLobbyServer')).toContain('lobby-launch:l9:1');
      expect(await outbox()).toEqual([]);
    } finally {
      outboxReads.restore();
    }
  });

  it('deletes sent intents with the workflow\'s next write, in the same statement, not alone', async () => {
    const sent: string[] = [];
    const r = runner(async (intent) => {
      // The command answers with an event the workflow reads, as a service's does: its write follows.
      const id = (intent.command as { lobbyId: string }).lobbyId;
      await bed.store.appendToStream(lobbyStream(id), [{ type: 'LobbyServerAssigned', data: { lobbyId: id, server: { instance_id: `s-${id}` }, at: iso(t0 + 1000) } }], 1);
      sent.push(intent.key);
    }, [launches as never], { deleteWaitMs: 60_000 });
    await r.start();
    const deletes = counting(/^DELETE FROM workflow_intents/);
    try {
      await lobbyStarts(['l1', 'l2'], t0);
      await eventually(async () => sent.length, (n) => n === 2, 5_000, 'both intents sent');
      await lobbyStarts(['l3'], t0); // a later write of the workflow, whatever raced before it
      await eventually(outbox, (rows) => !rows.some((k) => /:l[12]:/.test(k)), 5_000, 'l1\'s and l2\'s intents deleted by writes');
      expect(deletes.n).toBe(0);
      await r.idle();
      expect(await outbox()).toEqual([]);
    } finally {
      deletes.restore();
    }
  });

  it('a write returns its intents\' outbox ids in their order, also where the ids gain a digit (9 → 10, 99 → 100)', async () => {
    const pool = readModelsPool(bed.models);
    for (const start of [5, 95]) {
      await pool.query(`SELECT setval(pg_get_serial_sequence('workflow_intents', 'id'), $1)`, [start]);
      const c = noChanges();
      for (let i = 0; i < 12; i++) {
        c.intents.push({ key: `k${i}`, intent: { kind: 'command', target: { request: 'Noop', projectId: null }, command: { type: 'Noop' }, key: `i${start}-${i}` } as CommandIntent });
      }
      const ids = await writeChanges(pool, 'launches', c, null);
      const stored = new Map((await pool.query('SELECT id::text AS id, intent_key FROM workflow_intents WHERE id = ANY($1::bigint[])', [ids])).rows.map((r) => [r.id as string, r.intent_key as string]));
      expect(ids.map((id) => stored.get(id))).toEqual(c.intents.map((i) => i.intent.key));
    }
  });

  it('a write cancels timers and deletes sent intents by their keys: it reads a handful of rows, not the whole table', async () => {
    // 100,000 queued lobbies hold 100,000 queue timers: a write that cancels one must not read them all
    // (as a join with the keys it was planned as a scan of every timer of the workflow, and of the outbox).
    const pool = readModelsPool(bed.models);
    await pool.query(`INSERT INTO workflow_timers (workflow, key, id, due_at, event)
      SELECT 'launches', 'l' || g, 'timeout', now() + interval '1 hour', '{}' FROM generate_series(1, 5000) g`);
    const filled = noChanges();
    for (let i = 0; i < 2000; i++) filled.intents.push({ key: `l${i}`, intent: { kind: 'command', target: { request: 'Noop', projectId: null }, command: { type: 'Noop' }, key: `fill-${i}` } as CommandIntent });
    const ids = await writeChanges(pool, 'launches', filled, null);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (let round = 0; round < 8; round++) { // past the 5 custom plans: the prepared statement's generic plan too
        const c = noChanges();
        for (const k of [`l${round * 2 + 1}`, `l${round * 2 + 2}`]) c.timers.set(timerSlot(k, 'timeout'), { key: k, id: 'timeout', set: null });
        await writeChanges(client, 'launches', c, null, ids.slice(round * 3, round * 3 + 3));
      }
      const { rows } = await client.query(`SELECT relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_xact_user_tables
        WHERE relname IN ('workflow_timers', 'workflow_intents') ORDER BY relname`);
      // 16 timers and 24 intents deleted in all: each read once (a scan would read thousands per write)
      expect(rows.map((r) => [r.relname, Number(r.n)])).toEqual([['workflow_intents', expect.any(Number)], ['workflow_timers', expect.any(Number)]]);
      for (const r of rows) expect(Number(r.n)).toBeLessThanOrEqual(50);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect((await pool.query("SELECT count(*)::int AS n FROM workflow_timers WHERE workflow = 'launches'")).rows[0].n).toBe(5000 - 16);
    expect((await pool.query('SELECT count(*)::int AS n FROM workflow_intents WHERE id = ANY($1::bigint[])', [ids])).rows[0].n).toBe(2000 - 24);
    expect((await pool.query("SELECT count(*)::int AS n FROM workflow_timers WHERE key IN ('l1', 'l16', 'l17')")).rows[0].n).toBe(1); // l17 kept
  });

  it('a write, and the delete of sent intents, commit without waiting for the WAL flush, and only their own transaction (ADR-0018)', async () => {
    const pool = readModelsPool(bed.models);
    const client = await pool.connect();
    const setting = async () => (await client.query('SHOW synchronous_commit')).rows[0].synchronous_commit as string;
    try {
      const before = await setting();
      expect(before).not.toBe('off');
      const c = noChanges();
      c.intents.push({ key: 'async', intent: { kind: 'command', target: { request: 'Noop', projectId: null }, command: { type: 'Noop' }, key: 'async-1' } as CommandIntent });
      // Alone (its own transaction, as the runner writes): the connection keeps the server's setting after it.
      const ids = await writeChanges(client, 'launches', c, null);
      expect(await setting()).toBe(before);
      // Inside a transaction (a round of timers): that transaction commits asynchronously.
      await client.query('BEGIN');
      await writeChanges(client, 'launches', noChanges(), null);
      expect(await setting()).toBe('off');
      await client.query('COMMIT');
      expect(await setting()).toBe(before);
      await client.query('BEGIN');
      await intentsDone(client, ids);
      expect(await setting()).toBe('off');
      await client.query('COMMIT');
      expect(await setting()).toBe(before);
      expect((await pool.query('SELECT count(*)::int AS n FROM workflow_intents WHERE id = ANY($1::bigint[])', [ids])).rows[0].n).toBe(0);
    } finally {
      client.release();
    }
  });

  it('reads no state for an event that starts its instance over (Workflow.startsOver), and reads the stored one otherwise', async () => {
    const created = { ...launches, startsOver: (e: { type: string }) => e.type === 'LobbyCreated' };
    const { dispatch, keys } = recorder();
    const first = runner(dispatch, [created as never]);
    await first.start();
    const stateReads = counting(/FROM workflow_states/);
    try {
      await lobbyStarts(['l1', 'l2'], t0); // each lobby's first event here: LobbyCreated
      await first.idle();
      expect(keys('StartLobbyServer')).toEqual(['lobby-launch:l1:1', 'lobby-launch:l2:1']);
      expect(stateReads.n).toBe(0);
      await first.stop();

      // A new leader holds no state: l1's next event does not start it over, so its stored state is read.
      const second = runner(dispatch, [created as never]);
      await second.start();
      await bed.store.appendToStream(lobbyStream('l1'), [{ type: 'GameEnded', data: { lobbyId: 'l1', reason: 'server_stopped', by: null, at: iso(t0) } },
        { type: 'GameStarting', data: { lobbyId: 'l1', by: 'h', at: iso(t0) } }], 1);
      await second.idle();
      expect(keys('StartLobbyServer')).toEqual(['lobby-launch:l1:1', 'lobby-launch:l1:2', 'lobby-launch:l2:1']);
      expect(stateReads.n).toBe(1);
    } finally {
      stateReads.restore();
    }
  });

  it('an event that leaves its state as it was costs no write; a state read for it stays in memory (read once)', async () => {
    const { dispatch, keys } = recorder();
    const pool = readModelsPool(bed.models);
    const first = runner(dispatch);
    await first.start();
    await lobbyStarts(['u1'], t0);
    await first.idle();
    expect(keys('StartLobbyServer')).toEqual(['lobby-launch:u1:1']);
    const unchanged = (n: number) => Array.from({ length: n }, () => ({ type: 'PlayerReady', data: { lobbyId: 'u1', playerId: 'h', at: iso(t0) } }) as unknown as LobbyEvent);
    const writes = counting(/INSERT INTO workflow_states/);
    const reads = counting(/SELECT key, state FROM workflow_states/);
    try {
      await bed.store.appendToStream(lobbyStream('u1'), unchanged(2), 1);
      await first.idle();
      expect(writes.n).toBe(0);
      // the checkpoint past them is saved by the tick; nothing was lost: a new leader reads u1's state once
      await first.tick();
      expect(await loadCheckpoint(pool, 'launches')).toBe(await bed.store.headPosition(['lobby']));
      await first.stop();
      const second = runner(dispatch);
      await second.start();
      await bed.store.appendToStream(lobbyStream('u1'), unchanged(1), 3);
      await second.idle();
      await bed.store.appendToStream(lobbyStream('u1'), unchanged(1), 4);
      await second.idle();
      expect({ reads: reads.n, writes: writes.n }).toEqual({ reads: 1, writes: 0 });
      // and the state read is the stored one: the next launch is attempt 2
      await bed.store.appendToStream(lobbyStream('u1'), [{ type: 'GameStarting', data: { lobbyId: 'u1', by: 'h', at: iso(t0) } }], 5);
      await second.idle();
      expect(keys('StartLobbyServer')).toEqual(['lobby-launch:u1:1', 'lobby-launch:u1:2']);
    } finally {
      writes.restore();
      reads.restore();
    }
  });

  it('a stateless workflow (Workflow.stateless) reads and stores no state, yet sets, fires and cancels its timers', async () => {
    // The lobby-queue's shape: a timer per lobby set on GameStarting, cancelled on LobbyServerAssigned; when
    // due, a command that names what it is for (the aggregate's decider refuses a stale one).
    const timeouts: Workflow<LobbyEvent | TimedOut, null, Intent<{ type: string; [k: string]: unknown }, TimedOut>> = {
      name: 'timeouts',
      categories: ['lobby'],
      initialState: null,
      stateless: true,
      route: (e) => [e.data.lobbyId],
      evolve: (s) => s,
      react(_s, e) {
        const id = e.data.lobbyId;
        if (e.type === 'GameStarting') {
          const at = timeAfter(e.data.at, LOBBY_LAUNCH_TIMEOUT_MS);
          return [{ kind: 'timer', id: `timeout:${id}`, at, then: { type: 'TimedOut', data: { lobbyId: id, attempt: 0, at } } }];
        }
        if (e.type === 'LobbyServerAssigned') return [{ kind: 'cancel-timer', id: `timeout:${id}` }];
        if (e.type === 'TimedOut') return [{ kind: 'command', target: { aggregate: 'lobby', id, projectId: null }, command: { type: 'ServerStopped', instanceId: '' }, key: `timeout:${id}:${e.data.at}` }];
        return [];
      },
    };
    const { dispatch, keys } = recorder();
    const reads = counting(/FROM workflow_states/);
    const writes = counting(/INSERT INTO workflow_states/);
    try {
      const r = runner(dispatch, [timeouts as never]);
      await r.start();
      await lobbyStarts(['s1', 's2'], t0, ['s2']);
      await r.idle();
      expect(await timers()).toEqual(['s1']);
      clock = t0 + LOBBY_LAUNCH_TIMEOUT_MS;
      await r.tick();
      await r.idle();
      expect(keys('ServerStopped')).toEqual([`timeout:s1:${iso(t0 + LOBBY_LAUNCH_TIMEOUT_MS)}`]);
      expect(await timers()).toEqual([]);
      // Every one of those writes carried no state row (the statement still runs for timers and intents).
      const stateReads = reads.n;
      const { rows } = await readModelsPool(bed.models).query(`SELECT count(*)::int AS n FROM workflow_states WHERE workflow = 'timeouts'`);
      expect({ reads: stateReads, stored: rows[0].n }).toEqual({ reads: 0, stored: 0 });
      expect(writes.n).toBeGreaterThan(0);
    } finally {
      reads.restore();
      writes.restore();
    }
  });

  it('retries a failed dispatch, holding back the later intents of the same instance until it passes', async () => {
    const sent: string[] = [];
    let failures = 1;
    const r = runner(async (intent) => {
      if (failures-- > 0) throw new Error('servers unavailable');
      sent.push(intent.key);
    });
    await r.start();
    await lobbyStarts(['l1'], t0);
    await bed.store.appendToStream(lobbyStream('l1'), [{ type: 'GameEnded', data: { lobbyId: 'l1', reason: 'server_stopped', by: null, at: iso(t0) } },
      { type: 'GameStarting', data: { lobbyId: 'l1', by: 'h', at: iso(t0) } }], 1);
    await r.idle();
    expect(sent).toEqual([]); // the first failed; the second waits behind it
    clock = t0 + 10_000;
    await r.tick();
    expect(sent).toEqual(['lobby-launch:l1:1', 'lobby-launch:l1:2']);
  });

  it('sends the intents of different instances side by side (up to dispatchConcurrency), each instance\'s in its order', async () => {
    const log: string[] = [];
    let inFlight = 0;
    let most = 0;
    let othersSent!: () => void;
    const others = new Promise<void>((resolve) => (othersSent = resolve));
    const r = runner(async (intent) => {
      log.push(`start ${intent.key}`);
      inFlight++;
      most = Math.max(most, inFlight);
      // l1's first intent answers only once the other instances' were sent: one at a time, it would time out
      if (intent.key === 'lobby-launch:l1:1') await others;
      else await new Promise((res) => setTimeout(res, 20));
      inFlight--;
      log.push(`done ${intent.key}`);
      if (['l2', 'l3', 'l4'].every((l) => log.includes(`done lobby-launch:${l}:1`))) othersSent();
    }, [launches as never], { dispatchTimeoutMs: 5_000, dispatchConcurrency: 2 });
    await r.start();
    await lobbyStarts(['l1', 'l2', 'l3', 'l4'], t0);
    await bed.store.appendToStream(lobbyStream('l1'), [{ type: 'GameEnded', data: { lobbyId: 'l1', reason: 'server_stopped', by: null, at: iso(t0) } },
      { type: 'GameStarting', data: { lobbyId: 'l1', by: 'h', at: iso(t0) } }], 1);
    await r.idle();
    const at = (entry: string) => log.indexOf(entry);
    expect(log.filter((e) => e.startsWith('done')).sort()).toEqual(['done lobby-launch:l1:1', 'done lobby-launch:l1:2', 'done lobby-launch:l2:1', 'done lobby-launch:l3:1', 'done lobby-launch:l4:1']);
    expect(at('done lobby-launch:l4:1')).toBeLessThan(at('done lobby-launch:l1:1')); // not held up behind another instance
    expect(at('start lobby-launch:l1:2')).toBeGreaterThan(at('done lobby-launch:l1:1')); // an instance's own: in order
    expect(most).toBe(2);
    expect(await outbox()).toEqual([]);
  });

  it('a slow dispatch holds back only its own instance: intents decided while it runs go out in the free slots', async () => {
    const log: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => (firstStarted = resolve));
    const r = runner(async (intent) => {
      log.push(`start ${intent.key}`);
      if (intent.key === 'lobby-launch:l1:1') {
        firstStarted();
        await released; // answers only when the test says so, well within the timeout
      }
      log.push(`done ${intent.key}`);
    }, [launches as never], { dispatchTimeoutMs: 10_000, dispatchConcurrency: 2 });
    await r.start();
    await lobbyStarts(['l1'], t0);
    await started;
    // Decided while l1's dispatch hangs: they must not wait for it.
    await lobbyStarts(['l2', 'l3', 'l4'], t0);
    await bed.store.appendToStream(lobbyStream('l1'), [{ type: 'GameEnded', data: { lobbyId: 'l1', reason: 'server_stopped', by: null, at: iso(t0) } },
      { type: 'GameStarting', data: { lobbyId: 'l1', by: 'h', at: iso(t0) } }], 1);
    await eventually(async () => log.filter((e) => e.startsWith('done')).sort(), (d) => d.length === 3, 3_000, 'the other instances sent while l1 waits');
    expect(log.filter((e) => e.startsWith('done')).sort()).toEqual(['done lobby-launch:l2:1', 'done lobby-launch:l3:1', 'done lobby-launch:l4:1']);
    expect(log).not.toContain('start lobby-launch:l1:2'); // l1's own next waits behind its first
    release();
    await r.idle();
    expect(log.slice(-3)).toEqual(['done lobby-launch:l1:1', 'start lobby-launch:l1:2', 'done lobby-launch:l1:2']);
    expect(await outbox()).toEqual([]);
  });

  it('a dispatch that never answers counts as failed after its timeout: the outbox goes on, and the intent is sent again', async () => {
    const sent: string[] = [];
    let hangs = 1;
    const r = runner(async (intent) => {
      if (hangs-- > 0) return new Promise<void>(() => undefined); // a request lost for good
      sent.push(intent.key);
    }, [launches as never], { dispatchTimeoutMs: 200 });
    await r.start();
    await lobbyStarts(['l1', 'l2'], t0);
    await r.idle();
    // l1's first try hung and timed out (held back for its retry); l2 was not held up behind it
    expect(sent).toEqual(['lobby-launch:l2:1']);
    expect(await outbox()).toEqual(['lobby-launch:l1:1']);
    clock = t0 + 10_000;
    await r.tick();
    expect(sent).toEqual(['lobby-launch:l2:1', 'lobby-launch:l1:1']);
    expect(await outbox()).toEqual([]);
  });

  it('an event arriving while a batch that concerned no instance finishes is decided without waiting for another event', async () => {
    // Noise concerns no instance (decided without a write); Go right behind it sends a command. Go must not
    // wait in memory for a later event of the category: nothing else may ever come.
    type E = { type: 'Noise' | 'Go'; data: { id: string } };
    const quiet: Workflow<E, number, CommandIntent> = {
      name: 'quiet', categories: ['quiet'], initialState: 0,
      route: (e) => (e.type === 'Go' ? [e.data.id] : []),
      evolve: (n) => n + 1,
      react: (n, e) => [{ kind: 'command', target: { aggregate: 'quiet', id: e.data.id, projectId: null }, command: { type: 'Went' }, key: `${e.data.id}:${n}` }],
    };
    const { sent, dispatch } = recorder();
    const r = runner(dispatch, [quiet as never]);
    await r.start();
    for (let i = 0; i < 20; i++) {
      const noise = Array.from({ length: i % 4 }, () => ({ type: 'Noise', data: { id: `q${i}` } }));
      await bed.store.appendToStream(`quiet-q${i}`, [...noise, { type: 'Go', data: { id: `q${i}` } }], 'no_stream');
      const until = Date.now() + 3_000; // no idle(): it would decide what waits; the runner must do it alone
      while (!sent.some((s) => s.key === `q${i}:1`) && Date.now() < until) await new Promise((res) => setTimeout(res, 10));
      expect(sent.map((s) => s.key)).toContain(`q${i}:1`);
    }
  });
});
