// The gateway's lobby event streams over a real HTTP server, read by a real SSE client, fed through a real
// (in-process) bus: the statuses matchmaking produces (in_queue, match_found) give queue_stats (the
// matcher's broadcast figures) and match_found, a removed player's stream ends, a stale or repeated update is never sent twice.
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { SpanKind, trace } from '@opentelemetry/api';
import { InProcessBus } from '@spawnpoint/messaging';
import { loadConfig, PlatformConfig } from '@spawnpoint/platform';
import { LobbyUpdate, OpenedLobbyStream, QueueStatsBroadcast, SUBJECTS } from '@spawnpoint/proto';
import { lobbyEvents } from '../../../../test/support/sse';
import { installTracing, type TracingHarness } from '../../../../libs/messaging/src/testing/tracing-harness';
import { legacyLobbyEvents } from '../../../../test/support/legacy-sse';
import { legacyDialect } from '../legacy/legacy-events';
import { LobbyStreams, MAX_STREAMS_PER_MEMBER } from './lobby-streams';

const LOBBY = '11111111-1111-4111-8111-111111111111';
const lobby = (status: string, extra: object = {}) => ({ id: LOBBY, status, players: [{ id: 'alice' }, { id: 'bob' }], matchmaking: null, ...extra });

interface StreamsBed {
  bus: InProcessBus;
  streams: LobbyStreams;
  baseUrl: string;
  /** Broadcasts an update of LOBBY, as the lobbies service does after a change. */
  update(revision: number, l: object | null, over?: Partial<LobbyUpdate>): Promise<void>;
  close(): Promise<void>;
}

/**
 * LobbyStreams with these timer periods behind a real HTTP server that does what the events route does after
 * the lobbies service answered openStream: a member of LOBBY at revision `x-revision` (default `revision`).
 */
async function startStreams(timers: Partial<Pick<PlatformConfig, 'lobbyPresenceMs' | 'lobbyPingMs' | 'lobbyQueueStatsMs'>>, revision: number): Promise<StreamsBed> {
  const bus = new InProcessBus();
  const streams = new LobbyStreams(bus, { ...loadConfig({}, 'standalone'), ...timers });
  await streams.onModuleInit();
  const server = http.createServer((req, res) => {
    const opened: OpenedLobbyStream = { replay: [], lobbyId: LOBBY, revision: Number(req.headers['x-revision'] ?? revision), lobby: lobby('waiting') };
    // The legacy event stream's path: its player in the query, its dialect.
    const url = new URL(req.url ?? '/', 'http://x');
    const legacy = url.pathname.startsWith('/lobbies-sse/');
    const playerId = legacy ? String(url.searchParams.get('player-id')) : String(req.headers['x-player-id']);
    streams.open(res, { projectId: 'p1', playerId }, opened, legacy ? legacyDialect(300) : null);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    bus,
    streams,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    update: (rev, l, over = {}) =>
      bus.broadcast(SUBJECTS.lobbies.updates, { projectId: 'p1', config: 'default', lobbyId: LOBBY, revision: rev, kind: 'updated', lobby: l, removed: [], ...over } satisfies LobbyUpdate),
    async close() {
      await streams.beforeApplicationShutdown();
      await new Promise((resolve) => server.close(resolve));
      await bus.close();
    },
  };
}

describe('LobbyStreams (gateway fan-out)', () => {
  let bed: StreamsBed;
  let baseUrl: string;
  let streams: LobbyStreams;
  let update: StreamsBed['update'];

  beforeAll(async () => {
    bed = await startStreams({ lobbyQueueStatsMs: 200, lobbyPingMs: 60_000, lobbyPresenceMs: 60_000 }, 5);
    ({ baseUrl, streams, update } = bed);
  });
  afterAll(() => bed?.close());

  it('sends queue_stats while the lobby is in_queue, match_found once on the transition, and no stale or repeated update', async () => {
    const alice = lobbyEvents(baseUrl, 'key', 'default', 'alice');
    try {
      expect((await alice.next('connected')).id).toBe(`${LOBBY}:5`);
      await update(5, lobby('in_queue')); // not newer than what the stream has: dropped
      // queue_stats are the active matcher's live figures for the lobby's queue (config, mode, region)
      const stats = { playersSearching: 12, lobbiesInQueue: 6, avgWaitSeconds: 4 };
      const queues = [{ projectId: 'p1', config: 'default', mode: 'ranked', region: 'eu-west', ...stats }, { projectId: 'p1', config: 'default', mode: 'ranked', region: 'us-east', ...stats, lobbiesInQueue: 99 }];
      await bed.bus.broadcast(SUBJECTS.matchmaking.queueStats, { queues } satisfies QueueStatsBroadcast);
      await update(6, lobby('in_queue', { config: 'default', region: 'eu-west', matchmaking: { mode: 'ranked', queueStats: { stale: true } } }));
      expect((await alice.next('lobby_updated')).id).toBe(`${LOBBY}:6`);
      const q = await alice.next('queue_stats', undefined, 3_000);
      expect(q).toEqual({ type: 'queue_stats', id: `${LOBBY}:6`, data: stats });
      await update(7, lobby('match_found'));
      expect((await alice.next('lobby_updated')).data.status).toBe('match_found');
      expect((await alice.next('match_found')).data.status).toBe('match_found');
      await update(8, lobby('match_found', { players: [{ id: 'alice' }] }));
      await alice.next('lobby_updated');
      await new Promise((r) => setTimeout(r, 500));
      // one match_found for the transition; no queue_stats once out of the queue; revision 5 never resent
      expect(alice.events.filter((e) => e.type === 'match_found')).toHaveLength(1);
      expect(alice.events.filter((e) => e.type === 'queue_stats' && Number(e.id.split(':')[1]) > 6)).toHaveLength(0);
      expect(alice.events.filter((e) => e.type === 'lobby_updated').map((e) => e.id)).toEqual([`${LOBBY}:6`, `${LOBBY}:7`, `${LOBBY}:8`]);
    } finally {
      alice.close();
    }
  });

  it('gives a stream opened at an older revision the updates that were in flight meanwhile (recent buffer)', async () => {
    // The service answered openStream at revision 5; updates 6-8 went out before the stream was registered.
    const bob = lobbyEvents(baseUrl, 'key', 'default', 'bob');
    try {
      await bob.next('connected');
      await bob.next('lobby_updated', (e) => e.id === `${LOBBY}:8`);
      expect(bob.events.filter((e) => e.type === 'lobby_updated').map((e) => e.id)).toEqual([`${LOBBY}:6`, `${LOBBY}:7`, `${LOBBY}:8`]);
    } finally {
      bob.close();
    }
  });

  it("ends a removed player's stream after its update, and every stream after lobby_deleted", async () => {
    // Opened at revision 10: the updates 6-8 of the test before are still in the recent buffer, and
    // are (rightly) not resent to a stream that is past them.
    const alice = lobbyEvents(baseUrl, 'key', 'default', 'alice', { headers: { 'x-revision': '10' } });
    const bob = lobbyEvents(baseUrl, 'key', 'default', 'bob', { headers: { 'x-revision': '10' } });
    try {
      await alice.next('connected');
      await bob.next('connected');
      expect(streams.size).toBe(2);
      expect(bob.events.map((e) => e.type)).toEqual(['connected']);
      await update(20, lobby('waiting', { players: [{ id: 'alice' }] }), { removed: ['bob'] });
      expect((await bob.next('lobby_updated')).id).toBe(`${LOBBY}:20`);
      await bob.ended();
      await alice.next('lobby_updated');
      await update(21, null, { kind: 'deleted', reason: 'admin', removed: ['alice'] });
      expect((await alice.next('lobby_deleted')).data).toEqual({ id: LOBBY, reason: 'admin' });
      await alice.ended();
      expect(streams.size).toBe(0);
    } finally {
      alice.close();
      bob.close();
    }
  });
  it("ends a stream whose player is no longer in the lobby even if the update that removed them never arrived", async () => {
    const bob = lobbyEvents(baseUrl, 'key', 'default', 'bob', { headers: { 'x-revision': '22' } });
    try {
      await bob.next('connected');
      // revision 23 (bob kicked) was lost on the way; 24 shows the lobby without bob and names nobody as removed
      await update(24, lobby('waiting', { players: [{ id: 'alice' }] }));
      expect((await bob.next('lobby_updated')).id).toBe(`${LOBBY}:24`);
      await bob.ended();
    } finally {
      bob.close();
    }
  });
});

describe('LobbyStreams periodic work (presence, ping) spread over time', () => {
  let bed: StreamsBed;

  // presence every 400 ms (the turn: 4 slots of 100 ms), ping every 800 ms
  beforeAll(async () => { bed = await startStreams({ lobbyPresenceMs: 400, lobbyPingMs: 800, lobbyQueueStatsMs: 60_000 }, 1); });
  afterAll(() => bed?.close());

  it('reports every stream each turn in slices (not all in one message) and pings every stream', async () => {
    const players = Array.from({ length: 8 }, (_, i) => `p${i}`);
    const clients = players.map((p) => lobbyEvents(bed.baseUrl, 'key', 'default', p));
    try {
      await Promise.all(clients.map((c) => c.next('connected')));
      const reports: string[][] = [];
      const stop = await bed.bus.listen(SUBJECTS.lobbies.presence, (m: { entries: { playerId: string }[] }) => { reports.push(m.entries.map((e) => e.playerId)); });
      await Promise.all(clients.map((c) => c.next('ping', undefined, 3_000)));
      await new Promise((r) => setTimeout(r, 900));
      await stop();
      // 8 streams over 4 slots: 2 per message, never all 8 at once
      expect(reports.length).toBeGreaterThanOrEqual(8);
      expect(Math.max(...reports.map((r) => r.length))).toBe(2);
      const counts = new Map<string, number>();
      for (const id of reports.flat()) counts.set(id, (counts.get(id) ?? 0) + 1);
      for (const p of players) expect(counts.get(p) ?? 0).toBeGreaterThanOrEqual(2);
      expect(clients.every((c) => c.events[0].type === 'connected' && c.events.some((e) => e.type === 'ping' && e.id === `${LOBBY}:1`))).toBe(true);
    } finally {
      clients.forEach((c) => c.close());
    }
  });
});

describe('LobbyStreams per-member stream cap', () => {
  let bed: StreamsBed;

  beforeAll(async () => { bed = await startStreams({ lobbyPingMs: 60_000, lobbyPresenceMs: 60_000 }, 1); });
  afterAll(() => bed?.close());

  it(`keeps at most ${MAX_STREAMS_PER_MEMBER} streams per member: one more ends the oldest, other members are untouched`, async () => {
    const bob = lobbyEvents(bed.baseUrl, 'key', 'default', 'bob');
    const alices: ReturnType<typeof lobbyEvents>[] = [];
    try {
      await bob.next('connected');
      for (let i = 0; i <= MAX_STREAMS_PER_MEMBER; i++) {
        const a = lobbyEvents(bed.baseUrl, 'key', 'default', 'alice');
        alices.push(a);
        await a.next('connected');
      }
      await alices[0].ended();
      alices[0].close(); // no reconnect (it would end the next oldest in turn)
      expect(bed.streams.size).toBe(MAX_STREAMS_PER_MEMBER + 1); // 4 of alice's, bob's
      await bed.update(2, lobby('waiting'));
      for (const a of alices.slice(1)) expect((await a.next('lobby_updated')).id).toBe(`${LOBBY}:2`);
      expect((await bob.next('lobby_updated')).id).toBe(`${LOBBY}:2`);
    } finally {
      bob.close();
      alices.forEach((a) => a.close());
    }
  });
});

describe('LobbyStreams in a trace', () => {
  let bed: StreamsBed;
  let tracing: TracingHarness;

  beforeAll(async () => { bed = await startStreams({ lobbyPingMs: 60_000, lobbyPresenceMs: 60_000 }, 1); });
  afterAll(() => bed?.close());
  beforeEach(() => { tracing = installTracing(); });
  afterEach(() => tracing.dispose());

  it('writes an update broadcast inside a trace to each open stream in a span of that trace, under the delivery', async () => {
    const alice = lobbyEvents(bed.baseUrl, 'key', 'default', 'alice');
    const bob = lobbyEvents(bed.baseUrl, 'key', 'default', 'bob');
    try {
      await Promise.all([alice.next('connected'), bob.next('connected')]);
      const sender = await trace.getTracer('test').startActiveSpan('lobby update request', async (span) => {
        await bed.update(2, lobby('waiting'));
        span.end();
        return span.spanContext();
      });
      await Promise.all([alice.next('lobby_updated'), bob.next('lobby_updated')]);
      const spans = tracing.exporter.getFinishedSpans();
      const writes = spans.filter((s) => s.name === 'lobby stream write');
      expect(writes.map((w) => w.attributes['spawnpoint.player_id']).sort()).toEqual(['alice', 'bob']);
      const delivery = spans.find((s) => s.kind === SpanKind.CONSUMER && s.name === `process ${SUBJECTS.lobbies.updates}`)!;
      for (const write of writes) {
        expect(write.spanContext().traceId).toBe(sender.traceId);
        expect(write.parentSpanContext?.spanId).toBe(delivery.spanContext().spanId);
        expect(write.attributes).toMatchObject({ 'spawnpoint.lobby_id': LOBBY, 'spawnpoint.revision': 2, 'spawnpoint.sse.event': 'lobby_updated' });
      }
      const producer = spans.find((s) => s.kind === SpanKind.PRODUCER)!;
      expect(producer.parentSpanContext?.spanId).toBe(sender.spanId);
      expect(delivery.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);

      // The same update path outside a trace: no span at all.
      tracing.exporter.reset();
      await bed.update(3, lobby('waiting'));
      await Promise.all([alice.next('lobby_updated', (e) => e.id === `${LOBBY}:3`), bob.next('lobby_updated', (e) => e.id === `${LOBBY}:3`)]);
      expect(tracing.exporter.getFinishedSpans()).toEqual([]);
    } finally {
      alice.close();
      bob.close();
    }
  });
});

describe('LobbyStreams with the legacy dialect beside v3 streams', () => {
  let bed: StreamsBed;

  beforeAll(async () => {
    bed = await startStreams({ lobbyQueueStatsMs: 200, lobbyPingMs: 200, lobbyPresenceMs: 60_000 }, 5);
  });
  afterAll(() => bed?.close());

  it('one update reaches each stream in its own dialect; the legacy one gets no match_found or queue_stats, and comments as pings', async () => {
    const alice = lobbyEvents(bed.baseUrl, 'key', 'default', 'alice');
    const bob = await legacyLobbyEvents(bed.baseUrl, 'key', LOBBY, 'bob', 'default');
    try {
      await alice.next('connected');
      expect((await bob.next('connected')).data).toEqual({ message: expect.any(String), lobby: expect.objectContaining({ id: LOBBY, status: 'waiting', players: ['alice', 'bob'] }) });
      await bed.update(6, lobby('in_queue', { config: 'default', region: 'eu-west', matchmaking: { mode: 'ranked', startedAt: 't6' } }));
      expect((await alice.next('lobby_updated')).data.status).toBe('in_queue');
      expect((await bob.next('lobby:updated')).data).toMatchObject({ status: 'waiting', matchmakingMode: 'ranked' });
      await bed.update(7, lobby('match_found'));
      await alice.next('match_found');
      await bob.next('lobby:updated', (e) => e.data.status === 'waiting');
      await new Promise((r) => setTimeout(r, 500));
      expect(alice.events.some((e) => e.type === 'ping')).toBe(true);
      expect(bob.text()).toMatch(/\n: ping\n\n/);
      expect(bob.events.map((e) => e.event)).toEqual(['connected', 'lobby:updated', 'lobby:updated']);
      await bed.update(8, null, { kind: 'deleted', reason: 'admin' });
      expect((await bob.next('lobby:deleted')).data).toEqual({ lobbyId: LOBBY });
      await bob.ended();
      await alice.next('lobby_deleted');
    } finally {
      alice.close();
      bob.close();
    }
  });
});

describe('LobbyStreams with a lobby view over 1 MiB (ADR-0019)', () => {
  let bed: StreamsBed;
  beforeAll(async () => {
    bed = await startStreams({ lobbyPingMs: 60_000, lobbyPresenceMs: 60_000 }, 1);
  });
  afterAll(() => bed?.close());

  // 100 players with 16 KiB of state each: a 1.6 MiB frame, more than the 1 MiB a client may lag on its own.
  const big = (tag: string) => lobby('waiting', { players: [{ id: 'alice' }, { id: 'bob' }, ...Array.from({ length: 98 }, (_, i) => ({ id: `p${i}`, state: { blob: `${tag}${'x'.repeat(16 * 1024 - 20)}` } }))] });

  it('keeps a reading client through updates of a 1.6 MiB lobby, and still drops one that stopped reading', async () => {
    const alice = lobbyEvents(bed.baseUrl, 'key', 'default', 'alice');
    // Bob's connection is opened and never read: its unread bytes pile up in the gateway.
    const stalled = http.get(`${bed.baseUrl}/`, { headers: { 'x-player-id': 'bob' } }, (res) => res.pause());
    try {
      await alice.next('connected');
      await new Promise((r) => setTimeout(r, 200));
      expect(bed.streams.size).toBe(2);
      for (let rev = 2; rev <= 40; rev++) {
        await bed.update(rev, big(`r${rev}-`));
        // Alice keeps up (changes come at the pace of requests); bob reads nothing.
        await alice.next('lobby_updated', (e) => e.id === `${LOBBY}:${rev}`);
      }
      const last = alice.events[alice.events.length - 1];
      expect(last.id).toBe(`${LOBBY}:40`);
      expect(last.data.players).toHaveLength(100);
      expect(last.data.players[99].state.blob.startsWith('r40-')).toBe(true);
      expect(alice.events.filter((e) => e.type === 'lobby_updated').map((e) => Number(e.id.split(':')[1]))).toEqual(Array.from({ length: 39 }, (_, i) => i + 2));
      expect(alice.errors).toBe(0);
      // 39 frames of 1.6 MiB are far more than the loopback socket holds: bob is behind and dropped, alice stays.
      expect(bed.streams.size).toBe(1);
    } finally {
      alice.close();
      stalled.destroy();
    }
  });
});
