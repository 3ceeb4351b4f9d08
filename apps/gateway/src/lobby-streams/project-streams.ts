// Project-wide lobby event streams (GET /v3/lobbies/{config}/events, server key): an operator's view of
// every lobby of one configuration and the project's queue figures. Fed by the same broadcasts as the
// per-player streams (`lobbies.updates`, `matchmaking.queueStats`); a stream only ever gets its own
// project's updates. No replay: a client re-reads the lobbies after `connected` (docs/api.md).
import { BeforeApplicationShutdown, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { Bus, Unsubscribe } from '@spawnpoint/messaging';
import { BUS, CONFIG, PlatformConfig } from '@spawnpoint/platform';
import { LobbyUpdate, QueueStatsBroadcast, SUBJECTS, validListener } from '@spawnpoint/proto';
import { eventId, isBehind, SSE_HEADERS, sseFrame } from './sse';

/** Open project streams per project on one gateway; one more ends the oldest (streams draw on no rate-limit bucket). */
export const MAX_PROJECT_STREAMS = 8;

interface ProjectStream { projectId: string; config: string; res: ServerResponse; seq: number }

@Injectable()
export class ProjectLobbyStreams implements OnModuleInit, BeforeApplicationShutdown {
  private readonly byProject = new Map<string, ProjectStream[]>();
  private readonly unsubscribes: Unsubscribe[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(CONFIG) private readonly config: PlatformConfig) {}

  async onModuleInit(): Promise<void> {
    const queues = SUBJECTS.matchmaking.queueStats;
    this.unsubscribes.push(
      await this.bus.listen(SUBJECTS.lobbies.updates, validListener<LobbyUpdate>(SUBJECTS.lobbies.updates, (u) => this.onUpdate(u))),
      await this.bus.listen(queues, validListener<QueueStatsBroadcast>(queues, (b) => this.onQueueStats(b))),
    );
    this.timer = setInterval(() => this.ping(), this.config.lobbyPingMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const u of this.unsubscribes.splice(0)) await u();
    for (const list of this.byProject.values()) for (const s of list) s.res.end();
    this.byProject.clear();
  }

  get size(): number {
    let n = 0;
    for (const list of this.byProject.values()) n += list.length;
    return n;
  }

  /** Takes over `res` (hijacked): `connected`, then the config's lobby changes and the project's queue figures. */
  open(res: ServerResponse, projectId: string, config: string): void {
    res.writeHead(200, SSE_HEADERS);
    res.socket?.setNoDelay(true);
    const stream: ProjectStream = { projectId, config, res, seq: 0 };
    res.write(sseFrame(this.nextId(stream), 'connected', { config }));
    let list = this.byProject.get(projectId);
    if (!list) this.byProject.set(projectId, (list = []));
    for (const old of list.splice(0, Math.max(0, list.length + 1 - MAX_PROJECT_STREAMS))) old.res.end();
    list.push(stream);
    res.on('close', () => this.remove(stream));
  }

  private onUpdate(u: LobbyUpdate): void {
    const list = this.byProject.get(u.projectId);
    if (!list) return;
    const id = eventId(u.lobbyId, u.revision);
    const text = u.kind === 'deleted'
      ? sseFrame(id, 'lobby_deleted', { id: u.lobbyId, reason: u.reason })
      : sseFrame(id, 'lobby_updated', u.lobby);
    for (const s of [...list]) if (s.config === u.config) this.write(s, text);
  }

  private onQueueStats(b: QueueStatsBroadcast): void {
    for (const list of this.byProject.values()) {
      for (const s of [...list]) {
        const queues = b.queues.filter((q) => q.projectId === s.projectId && q.config === s.config)
          .map(({ mode, region, playersSearching, lobbiesInQueue, avgWaitSeconds }) => ({ mode, region, playersSearching, lobbiesInQueue, avgWaitSeconds }));
        this.write(s, sseFrame(this.nextId(s), 'queue_stats', { queues }));
      }
    }
  }

  private ping(): void {
    for (const list of this.byProject.values()) for (const s of [...list]) this.write(s, sseFrame(this.nextId(s), 'ping', {}));
  }

  private write(s: ProjectStream, text: string): void {
    if (s.res.writableEnded) return;
    s.res.write(text);
    // As on the player streams (sse.ts).
    if (isBehind(s.res, text.length)) {
      this.remove(s);
      s.res.end();
    }
  }

  /** Ids of events that are not a lobby's change: `<config>:<n>` (nothing is replayed from them). */
  private nextId(s: ProjectStream): string {
    return `${s.config}:${++s.seq}`;
  }

  private remove(s: ProjectStream): void {
    const list = this.byProject.get(s.projectId);
    if (!list) return;
    const i = list.indexOf(s);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byProject.delete(s.projectId);
  }
}
