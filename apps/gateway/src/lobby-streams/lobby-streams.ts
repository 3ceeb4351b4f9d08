// Open lobby event streams of this gateway. One `lobbies.updates` subscription per gateway (any
// replica can serve any player); each update is framed once and written to the lobby's open streams.
// Streams count as presence: they are reported to the lobbies service every `lobbyPresenceMs`.
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { Bus, Unsubscribe } from '@spawnpoint/messaging';
import { BUS, CONFIG, PlatformConfig } from '@spawnpoint/platform';
import { LobbyPresence, LobbyStreamEvent, LobbyUpdate, OpenedLobbyStream, SUBJECTS } from '@spawnpoint/proto';
import { RecentUpdates } from './recent-updates';
import { eventId, SSE_HEADERS, sseFrame } from './sse';

/** A client this far behind is dropped (it reconnects with Last-Event-ID and is replayed). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

type LobbyJson = { status?: string; matchmaking?: { queueStats?: unknown } | null };

interface Stream {
  projectId: string;
  playerId: string;
  lobbyId: string;
  revision: number;
  /** Only what the timers need (not the lobby itself: 10,000 streams would keep 10,000 copies). */
  status: string | undefined;
  queueStats: unknown;
  res: ServerResponse;
}

@Injectable()
export class LobbyStreams implements OnModuleInit, OnApplicationShutdown {
  private readonly byLobby = new Map<string, Set<Stream>>();
  private readonly recent = new RecentUpdates();
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: Unsubscribe | null = null;

  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(CONFIG) private readonly config: PlatformConfig) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.bus.listen(SUBJECTS.lobbies.updates, (u: LobbyUpdate) => this.onUpdate(u));
    this.every(this.config.lobbyPresenceMs, () => this.reportPresence());
    this.every(this.config.lobbyPingMs, () => this.broadcastFrame((s) => sseFrame(eventId(s.lobbyId, s.revision), 'ping', {})));
    this.every(this.config.lobbyQueueStatsMs, () => this.broadcastFrame((s) => s.status === 'in_queue'
      ? sseFrame(eventId(s.lobbyId, s.revision), 'queue_stats', s.queueStats ?? {}) : null));
    this.every(1_000, () => this.recent.prune());
  }

  async onApplicationShutdown(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.unsubscribe?.();
    for (const set of this.byLobby.values()) for (const s of set) s.res.end();
    this.byLobby.clear();
  }

  get size(): number {
    let n = 0;
    for (const set of this.byLobby.values()) n += set.size;
    return n;
  }

  /** Takes over `res` (already hijacked from the framework): replay, `connected`, then live updates. */
  open(res: ServerResponse, who: { projectId: string; playerId: string }, opened: OpenedLobbyStream): void {
    res.writeHead(200, SSE_HEADERS);
    res.socket?.setNoDelay(true);
    for (const e of opened.replay) res.write(frame(e));
    if (!opened.lobbyId) {
      res.end();
      return;
    }
    const lobby = opened.lobby as LobbyJson | null;
    const stream: Stream = { ...who, lobbyId: opened.lobbyId, revision: opened.revision, status: lobby?.status, queueStats: lobby?.matchmaking?.queueStats, res };
    res.write(sseFrame(eventId(opened.lobbyId, opened.revision), 'connected', opened.lobby));
    let set = this.byLobby.get(stream.lobbyId);
    if (!set) this.byLobby.set(stream.lobbyId, (set = new Set()));
    set.add(stream);
    res.on('close', () => this.remove(stream));
    // Updates that arrived while the stream was being opened.
    for (const u of this.recent.after(stream.lobbyId, stream.revision)) this.deliver(stream, u, frameOf(u));
    void this.bus.broadcast(SUBJECTS.lobbies.presence, { entries: [{ projectId: who.projectId, lobbyId: stream.lobbyId, playerId: who.playerId }] } satisfies LobbyPresence);
  }

  private onUpdate(u: LobbyUpdate): void {
    this.recent.add(u);
    const set = this.byLobby.get(u.lobbyId);
    if (!set) return;
    const text = frameOf(u);
    for (const s of set) this.deliver(s, u, text);
  }

  private deliver(s: Stream, u: LobbyUpdate, text: string): void {
    if (u.revision <= s.revision || s.res.writableEnded) return;
    s.revision = u.revision;
    const wasMatchFound = s.status === 'match_found';
    const lobby = u.lobby as LobbyJson | null;
    s.status = lobby?.status;
    s.queueStats = lobby?.matchmaking?.queueStats;
    s.res.write(text);
    if (u.kind === 'updated' && s.status === 'match_found' && !wasMatchFound) {
      s.res.write(sseFrame(eventId(u.lobbyId, u.revision), 'match_found', u.lobby));
    }
    if (u.kind === 'deleted' || u.removed.includes(s.playerId) || s.res.writableLength > MAX_BUFFERED_BYTES) this.close(s);
  }

  private close(s: Stream): void {
    this.remove(s);
    s.res.end();
  }

  private remove(s: Stream): void {
    const set = this.byLobby.get(s.lobbyId);
    if (!set) return;
    set.delete(s);
    if (set.size === 0) this.byLobby.delete(s.lobbyId);
  }

  private broadcastFrame(make: (s: Stream) => string | null): void {
    for (const set of this.byLobby.values()) {
      for (const s of set) {
        const text = make(s);
        if (text) s.res.write(text);
      }
    }
  }

  private reportPresence(): void {
    const entries: LobbyPresence['entries'] = [];
    for (const set of this.byLobby.values()) for (const s of set) entries.push({ projectId: s.projectId, lobbyId: s.lobbyId, playerId: s.playerId });
    if (entries.length) void this.bus.broadcast(SUBJECTS.lobbies.presence, { entries } satisfies LobbyPresence).catch(() => undefined);
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }
}

const frame = (e: LobbyStreamEvent) => sseFrame(e.id, e.event, e.data);

function frameOf(u: LobbyUpdate): string {
  const id = eventId(u.lobbyId, u.revision);
  return u.kind === 'deleted' ? sseFrame(id, 'lobby_deleted', { id: u.lobbyId, reason: u.reason }) : sseFrame(id, 'lobby_updated', u.lobby);
}
