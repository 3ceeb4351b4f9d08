// Idle lobbies and silent members: every `everyMs`, live lobbies from the read model are checked
// against their config's `timeout` (no member request, no open stream) and, with `heartbeat: true`,
// `heartbeatTimeout` per member. The verdict is a pure function; the sweep applies it.
import { LobbyConfig } from '@spawnpoint/domain';
import { Bus } from '@spawnpoint/messaging';
import { SUBJECTS } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { Presence } from './presence';

export interface SweepRow { id: string; projectId: string; config: string; activity: string; players: [string, string][] }

export type SweepVerdict = { kind: 'idle' } | { kind: 'stale'; playerIds: string[] } | null;

/** `lastSeen`: the latest sign of life the service knows for a member (presence), beyond the stored times. */
export function sweepVerdict(row: SweepRow, config: LobbyConfig, now: number, presence: Pick<Presence, 'lastSeen' | 'lastInLobby'>): SweepVerdict {
  const activity = Math.max(Date.parse(row.activity), presence.lastInLobby(row.id));
  if (now - activity > config.timeout * 1000) return { kind: 'idle' };
  if (!config.heartbeat) return null;
  const limit = now - config.heartbeatTimeout * 1000;
  const stale = row.players.filter(([id, seen]) => Math.max(Date.parse(seen), presence.lastSeen(row.id, id)) < limit).map(([id]) => id);
  return stale.length ? { kind: 'stale', playerIds: stale } : null;
}

export interface SweepTarget {
  lobbyConfig(projectId: string, name: string): Promise<LobbyConfig>;
  deleteLobby(projectId: string, lobbyId: string, reason: 'idle'): Promise<void>;
  removeStale(projectId: string, lobbyId: string, playerIds: string[], config: LobbyConfig): Promise<void>;
}

export class LobbySweeper {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly target: SweepTarget, private readonly db: ReadModels, private readonly bus: Bus, private readonly presence: Presence, private readonly everyMs: number) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async sweep(now = Date.now()): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const touched = this.presence.takePending();
      if (touched.length) await this.bus.broadcast(SUBJECTS.lobbies.presence, { entries: touched });
      const rows = await this.db.$queryRaw<SweepRow[]>`
        SELECT id::text AS id, project_id AS "projectId", config, state->>'lastActivityAt' AS activity,
               (SELECT coalesce(jsonb_agg(jsonb_build_array(p->>'id', p->>'lastSeenAt')), '[]'::jsonb) FROM jsonb_array_elements(state->'players') p) AS players
        FROM lobbies`;
      this.presence.retain(new Set(rows.map((r) => r.id)));
      for (const row of rows) {
        const config = await this.target.lobbyConfig(row.projectId, row.config).catch(() => null);
        if (!config) continue;
        const verdict = sweepVerdict(row, config, now, this.presence);
        if (!verdict) continue;
        const done = verdict.kind === 'idle'
          ? this.target.deleteLobby(row.projectId, row.id, 'idle')
          : this.target.removeStale(row.projectId, row.id, verdict.playerIds, config);
        await done.catch(() => undefined); // changed meanwhile: the next sweep looks again
      }
    } catch (err) {
      if (this.timer) console.error(`lobbies: sweep failed: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}
