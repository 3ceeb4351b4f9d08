// Idle lobbies and silent members: every `everyMs`, live lobbies from the read model are checked
// against their config's `timeout` (no member request, no open stream) and, with `heartbeat: true`,
// `heartbeatTimeout` per member. The verdict is a pure function; the sweep applies it.
// A sweep reads only candidates: lobbies whose stored last request (or oldest member's) is older than
// their config allows. Presence can only make a lobby younger, so no lobby the verdict would act on
// is left out; the rest of the table is not read (a full read of every lobby's state every second
// grew with players × lobbies).
import { LobbyConfig } from '@spawnpoint/domain';
import { Bus } from '@spawnpoint/messaging';
import { SUBJECTS } from '@spawnpoint/proto';
import { readModelsPool, type ReadModels } from '@spawnpoint/read-models';
import { Presence } from './presence';
import { logger } from '@spawnpoint/logging';

const log = logger('lobbies');

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
  /** Broadcasts the deletion again if the store says the lobby is deleted (true), else does nothing (false). */
  repeatDeletion(lobbyId: string): Promise<boolean>;
  removeStale(projectId: string, lobbyId: string, playerIds: string[], config: LobbyConfig): Promise<void>;
}

/** Per (project, config): lobbies whose stored times are older than these may need the verdict. */
export interface SweepCutoff { projectId: string; config: string; idleBefore: string; staleBefore: string | null }

export function sweepCutoff(projectId: string, config: LobbyConfig, now: number): SweepCutoff {
  return {
    projectId, config: config.name,
    idleBefore: new Date(now - config.timeout * 1000).toISOString(),
    staleBefore: config.heartbeat ? new Date(now - config.heartbeatTimeout * 1000).toISOString() : null,
  };
}

// Every second, so neither query may read the whole table (100,000 queued lobbies are 100,000 rows):
// the configs in use are a skip scan of the (project_id, config, …) index, one probe per config; the
// candidates are found by the time indexes first, with the laxest cutoff of all configs (a superset, which
// the planner sees as a value), then each config's own.
const CONFIGS_IN_USE = `WITH RECURSIVE c AS (
    (SELECT project_id, config FROM lobbies ORDER BY project_id, config LIMIT 1)
    UNION ALL
    SELECT n.project_id, n.config FROM c CROSS JOIN LATERAL (
      SELECT l.project_id, l.config FROM lobbies l WHERE (l.project_id, l.config) > (c.project_id, c.config)
      ORDER BY l.project_id, l.config LIMIT 1) n)
  SELECT project_id AS "projectId", config FROM c`;
const CANDIDATES = `
  SELECT l.id::text AS id, l.project_id AS "projectId", l.config, l.state->>'lastActivityAt' AS activity,
         (SELECT coalesce(jsonb_agg(jsonb_build_array(p->>'id', p->>'lastSeenAt')), '[]'::jsonb) FROM jsonb_array_elements(l.state->'players') p) AS players
  FROM lobbies l
  JOIN unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[]) AS c(project_id, config, idle_before, stale_before)
    ON l.project_id = c.project_id AND l.config = c.config
  WHERE (l.activity_at < $5::timestamptz OR l.seen_min_at < $6::timestamptz)
    AND (l.activity_at < c.idle_before OR l.seen_min_at < c.stale_before)`;
const STILL_LIVE = 'SELECT id::text AS id FROM lobbies WHERE id = ANY($1::uuid[])';
/** Presence of lobbies deleted elsewhere is dropped every this many sweeps. */
const RETAIN_EVERY = 30;
/** At most this many lost deletions are repeated per presence check (each reads one lobby stream). */
const REPEAT_MAX = 100;
export class LobbySweeper {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  /** The sweep under way, which stop() lets finish (the database closes after the service). */
  private current: Promise<void> = Promise.resolve();
  private sweeps = 0;
  /** Lobbies whose presence was dropped at the last check because they were not in the read model. */
  private forgotten = new Set<string>();

  constructor(private readonly target: SweepTarget, private readonly db: ReadModels, private readonly bus: Bus, private readonly presence: Presence, private readonly everyMs: number, private readonly clock: () => number) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.current = this.sweep();
    }, this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current.catch(() => undefined);
  }

  async sweep(now = this.clock()): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const touched = this.presence.takePending();
      if (touched.length) await this.bus.broadcast(SUBJECTS.lobbies.presence, { entries: touched });
      const sql = readModelsPool(this.db);
      if (++this.sweeps % RETAIN_EVERY === 0) {
        const known = this.presence.lobbyIds();
        const live = new Set(known.length ? (await sql.query<{ id: string }>(STILL_LIVE, [known])).rows.map((r) => r.id) : []);
        const gone = known.filter((id) => !live.has(id));
        // Presence again for a lobby dropped at the last check: a gateway still holds a stream on a deleted
        // lobby, so the deletion's broadcast was lost on the way. Repeat it (the store decides).
        const lost = gone.filter((id) => this.forgotten.has(id)).slice(0, REPEAT_MAX);
        this.forgotten = new Set(gone);
        this.presence.forget(gone);
        for (const id of lost) await this.target.repeatDeletion(id).catch((err) => log.error(`lobbies: could not repeat the deletion of ${id}: ${(err as Error).message}`));
      }
      const configs = new Map<string, LobbyConfig>();
      const cutoffs: SweepCutoff[] = [];
      for (const { projectId, config: name } of (await sql.query<{ projectId: string; config: string }>(CONFIGS_IN_USE)).rows) {
        const config = await this.target.lobbyConfig(projectId, name).catch(() => null);
        if (!config) continue;
        configs.set(`${projectId}/${name}`, config);
        cutoffs.push(sweepCutoff(projectId, config, now));
      }
      if (cutoffs.length === 0) return;
      const column = <K extends keyof SweepCutoff>(k: K) => cutoffs.map((c) => c[k]);
      const latest = (values: (string | null)[]) => values.reduce<string | null>((a, v) => (v !== null && (a === null || v > a) ? v : a), null);
      const { rows } = await sql.query<SweepRow>(CANDIDATES, [
        column('projectId'), column('config'), column('idleBefore'), column('staleBefore'), latest(column('idleBefore')), latest(column('staleBefore')),
      ]);
      for (const row of rows) {
        const config = configs.get(`${row.projectId}/${row.config}`)!;
        const verdict = sweepVerdict(row, config, now, this.presence);
        if (!verdict) continue;
        const done = verdict.kind === 'idle'
          ? this.target.deleteLobby(row.projectId, row.id, 'idle')
          : this.target.removeStale(row.projectId, row.id, verdict.playerIds, config);
        await done.catch(() => undefined); // changed meanwhile: the next sweep looks again
      }
    } catch (err) {
      if (this.timer) log.error(`lobbies: sweep failed: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}
