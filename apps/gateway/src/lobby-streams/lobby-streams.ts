// Open lobby event streams of this gateway. One `lobbies.updates` subscription per gateway (any
// replica can serve any player); each update is framed once and written to the lobby's open streams.
// Streams count as presence: they are reported to the lobbies service every `lobbyPresenceMs`. Presence,
// `ping` and `queue_stats` (the matcher's live figures for the lobby's queue) are spread over time by a
// StreamWheel, a slice of the streams per tick.
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit, Optional } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { Bus, Unsubscribe } from '@spawnpoint/messaging';
import { BUS, CONFIG, metricsEnabled, PlatformConfig, registerGauges } from '@spawnpoint/platform';
import { LiveQueueStats } from '@spawnpoint/service-clients';
import { lobbyStreamGauges } from './lobby-stream-gauges';
import { LobbyPresence, LobbyStreamEvent, LobbyUpdate, OpenedLobbyStream, SUBJECTS, validListener } from '@spawnpoint/proto';
import { RecentUpdates } from './recent-updates';
import { eventId, isBehind, SSE_HEADERS, sseFrame } from './sse';
import { StreamWheel, wheelPlan } from './stream-wheel';
import { writeInSpan } from './stream-spans';
import { StreamQuota } from './stream-quota';

/**
 * Open streams per member of a lobby on one gateway; opening one more ends the oldest. Streams draw on no
 * rate-limit bucket (decisions.md), so a client stuck in a reconnect loop must not pile them up.
 */
export const MAX_STREAMS_PER_MEMBER = 4;

/**
 * How a stream writes its events. The v3 stream (the default) writes them as they are; another API (the
 * legacy lobby API) gives its own dialect: the same updates, named and shaped for its clients. Each
 * function returns the whole frame, or '' to send nothing.
 */
export interface StreamDialect {
  connected(opened: OpenedLobbyStream & { lobbyId: string }): string;
  replayed(e: LobbyStreamEvent): string;
  update(u: LobbyUpdate): string;
  ping(lobbyId: string, revision: number): string;
  /** `match_found` and `queue_stats` events (v3 only). */
  matchEvents: boolean;
}

type LobbyJson = { status?: string; config?: string; region?: string; players?: { id: string }[]; matchmaking?: { mode?: string } | null };

interface Stream {
  projectId: string;
  playerId: string;
  lobbyId: string;
  revision: number;
  /** Only what the timers need (not the lobby itself: 10,000 streams would keep 10,000 copies). */
  status: string | undefined;
  /** The queue of a searching lobby (its `queue_stats` are the matcher's live figures for it). */
  queue: { config: string; mode: string; region: string } | null;
  res: ServerResponse;
  /** null: v3 events. */
  dialect: StreamDialect | null;
}

@Injectable()
export class LobbyStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly byLobby = new Map<string, Set<Stream>>();
  private readonly recent = new RecentUpdates();
  private readonly plan: ReturnType<typeof wheelPlan<{ presence: number; ping: number; queueStats: number }>>;
  private readonly wheel: StreamWheel<Stream>;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribes: Unsubscribe[] = [];
  private readonly queueFigures = new LiveQueueStats();
  private unregisterGauges: (() => void) | null = null;

  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(CONFIG) private readonly config: PlatformConfig, @Optional() readonly quota: StreamQuota = new StreamQuota()) {
    this.plan = wheelPlan({ presence: config.lobbyPresenceMs, ping: config.lobbyPingMs, queueStats: config.lobbyQueueStatsMs });
    this.wheel = new StreamWheel(this.plan.slots);
  }

  async onModuleInit(): Promise<void> {
    this.unsubscribes.push(
      await this.bus.listen(SUBJECTS.lobbies.updates, validListener<LobbyUpdate>(SUBJECTS.lobbies.updates, (u) => this.onUpdate(u))),
      await this.queueFigures.follow(this.bus),
    );
    this.every(this.plan.tickMs, () => this.tick());
    this.every(1_000, () => this.recent.prune());
    if (metricsEnabled()) this.unregisterGauges = registerGauges(lobbyStreamGauges(() => this.size));
  }

  /** Before the HTTP listener closes: it waits for every open connection, and a stream stays open until ended. */
  async beforeApplicationShutdown(): Promise<void> {
    this.unregisterGauges?.();
    for (const t of this.timers) clearInterval(t);
    for (const u of this.unsubscribes.splice(0)) await u();
    for (const set of this.byLobby.values()) for (const s of set) s.res.end();
    this.byLobby.clear();
  }

  get size(): number {
    return this.wheel.size;
  }

  /** Takes over `res` (already hijacked from the framework): replay, `connected`, then live updates. */
  open(res: ServerResponse, who: { projectId: string; playerId: string }, opened: OpenedLobbyStream, dialect: StreamDialect | null = null): void {
    res.writeHead(200, SSE_HEADERS);
    res.socket?.setNoDelay(true);
    for (const e of opened.replay) res.write(dialect ? dialect.replayed(e) : frame(e));
    if (!opened.lobbyId) {
      res.end();
      return;
    }
    const lobby = opened.lobby as LobbyJson | null;
    const stream: Stream = { ...who, lobbyId: opened.lobbyId, revision: opened.revision, status: lobby?.status, queue: queueOf(lobby), res, dialect };
    res.write(dialect ? dialect.connected({ ...opened, lobbyId: opened.lobbyId }) : sseFrame(eventId(opened.lobbyId, opened.revision), 'connected', opened.lobby));
    let set = this.byLobby.get(stream.lobbyId);
    if (!set) this.byLobby.set(stream.lobbyId, (set = new Set()));
    const mine = [...set].filter((s) => s.playerId === who.playerId);
    for (const old of mine.slice(0, Math.max(0, mine.length + 1 - MAX_STREAMS_PER_MEMBER))) this.close(old);
    set.add(stream);
    this.wheel.add(stream);
    res.on('close', () => this.remove(stream));
    // Updates that arrived while the stream was being opened.
    for (const u of this.recent.after(stream.lobbyId, stream.revision)) this.deliver(stream, u, framed(u), new Map());
    void this.bus.broadcast(SUBJECTS.lobbies.presence, { entries: [{ projectId: who.projectId, lobbyId: stream.lobbyId, playerId: who.playerId }] } satisfies LobbyPresence);
  }

  private onUpdate(u: LobbyUpdate): void {
    this.recent.add(u);
    const set = this.byLobby.get(u.lobbyId);
    if (!set) return;
    const f = framed(u);
    // Each dialect frames an update once for all its streams.
    const dialects = new Map<StreamDialect, string>();
    for (const s of set) this.deliver(s, u, f, dialects);
  }

  private deliver(s: Stream, u: LobbyUpdate, f: Framed, dialects: Map<StreamDialect, string>): void {
    if (u.revision <= s.revision || s.res.writableEnded) return;
    s.revision = u.revision;
    const wasMatchFound = s.status === 'match_found';
    const lobby = u.lobby as LobbyJson | null;
    s.status = lobby?.status;
    s.queue = queueOf(lobby);
    let text = f.text;
    if (s.dialect) {
      const d = s.dialect;
      text = dialects.get(d) ?? d.update(u);
      dialects.set(d, text);
    }
    if (text) writeInSpan(s, u.revision, f.event, text.length, () => s.res.write(text));
    // A match formed (kind match_found: also when no confirmation is needed and the lobby is matched at once).
    if ((!s.dialect || s.dialect.matchEvents) && (u.kind === 'match_found' || (u.kind === 'updated' && s.status === 'match_found')) && !wasMatchFound) {
      s.res.write(sseFrame(eventId(u.lobbyId, u.revision), 'match_found', u.lobby));
    }
    // Not a member any more, whether this update removed the player or an earlier one that never arrived did.
    const gone = u.kind === 'deleted' || u.removed.includes(s.playerId) || (f.members !== null && !f.members.has(s.playerId));
    if (gone || isBehind(s.res, f.text.length)) this.close(s);
  }

  private close(s: Stream): void {
    this.remove(s);
    s.res.end();
  }

  private remove(s: Stream): void {
    this.wheel.delete(s);
    const set = this.byLobby.get(s.lobbyId);
    if (!set) return;
    set.delete(s);
    if (set.size === 0) this.byLobby.delete(s.lobbyId);
  }

  /** One slot of streams: their presence in one message, and the pings and queue stats that are due. */
  private tick(): void {
    const due = this.wheel.tick(this.plan.every);
    for (const s of due.ping) s.res.write(s.dialect ? s.dialect.ping(s.lobbyId, s.revision) : sseFrame(eventId(s.lobbyId, s.revision), 'ping', {}));
    for (const s of due.queueStats) {
      if (s.status !== 'in_queue' || !s.queue || (s.dialect && !s.dialect.matchEvents)) continue;
      const figures = this.queueFigures.of(s.projectId, s.queue.config, s.queue.mode, s.queue.region);
      s.res.write(sseFrame(eventId(s.lobbyId, s.revision), 'queue_stats', figures));
    }
    if (!due.presence.length) return;
    const entries = due.presence.map((s) => ({ projectId: s.projectId, lobbyId: s.lobbyId, playerId: s.playerId }));
    void this.bus.broadcast(SUBJECTS.lobbies.presence, { entries } satisfies LobbyPresence).catch(() => undefined);
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }
}

const queueOf = (lobby: LobbyJson | null | undefined) =>
  (lobby?.matchmaking?.mode && lobby.config && lobby.region ? { config: lobby.config, mode: lobby.matchmaking.mode, region: lobby.region } : null);

const frame = (e: LobbyStreamEvent) => sseFrame(e.id, e.event, e.data);

/** What every stream of the lobby gets from one update, worked out once: its frame and who is still a member. */
interface Framed {
  text: string;
  event: 'lobby_updated' | 'lobby_deleted';
  members: Set<string> | null;
}

function framed(u: LobbyUpdate): Framed {
  const id = eventId(u.lobbyId, u.revision);
  if (u.kind === 'deleted') return { text: sseFrame(id, 'lobby_deleted', { id: u.lobbyId, reason: u.reason }), event: 'lobby_deleted', members: null };
  const players = (u.lobby as LobbyJson | null)?.players;
  return { text: sseFrame(id, 'lobby_updated', u.lobby), event: 'lobby_updated', members: players ? new Set(players.map((p) => p.id)) : null };
}
