// The live figures of each queue (decisions.md: queueStats per (config, mode, region)): lobbies and
// players searching now, from the queue in memory, and avgWaitSeconds, the mean time from start to match
// over the last 10 minutes (match_waits). The active matcher broadcasts them every queueStatsBroadcastMs; the
// lobbies service shows them in lobby views and the gateways send them to queued lobbies' event streams.
import { Pool } from 'pg';
import { QueueStatsEntry } from '@spawnpoint/proto';
import { QueueBookProxy } from './queue-book-proxy';

const WAIT_WINDOW_MS = 10 * 60_000;
const AVG_WAITS = `SELECT project_id, config, mode, region, round(avg(extract(epoch FROM matched_at - queued_at)))::int AS avg
  FROM match_waits WHERE matched_at > $1 GROUP BY project_id, config, mode, region`;
const PRUNE = 'DELETE FROM match_waits WHERE matched_at <= $1';

const key = (e: { projectId: string; config: string; mode: string; region: string }) => `${e.projectId}\u0000${e.config}\u0000${e.mode}\u0000${e.region}`;

/** The counts with the recent mean waits; waits older than the window are dropped. */
export async function queueStats(book: QueueBookProxy, pool: Pool, nowMs: number): Promise<QueueStatsEntry[]> {
  const since = new Date(nowMs - WAIT_WINDOW_MS);
  // Lobbies and players per (project, config, mode, region) now, counted in the queue worker.
  const entries = await book.counts();
  if (entries.length === 0) return entries;
  const { rows } = await pool.query<{ project_id: string; config: string; mode: string; region: string; avg: number }>(AVG_WAITS, [since]);
  const avg = new Map(rows.map((r) => [key({ projectId: r.project_id, config: r.config, mode: r.mode, region: r.region }), r.avg]));
  for (const e of entries) e.avgWaitSeconds = avg.get(key(e)) ?? 0;
  await pool.query(PRUNE, [since]);
  return entries;
}
