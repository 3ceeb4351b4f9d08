// Game output is buffered and written in batches: a chatty game must not cost a round trip a line.
// Each batch also adds its per-minute counts to log_minutes (the histogram's rollup), in the same
// transaction: the rollup never disagrees with log_lines. A batch the database refuses (an outage) is kept
// and written again with backoff; the buffer is bounded (the oldest lines are dropped, counted in a warning).
import type { ReadModels } from '@spawnpoint/read-models';
import { logger } from '@spawnpoint/logging';
import { storableText } from '@spawnpoint/platform';
import { LogEntry } from '@spawnpoint/runtime';

const log = logger('servers');

type BufferedEntry = LogEntry & { projectId: string };

export class LogWriter {
  private buffer: BufferedEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private retryMs = 0;
  private dropped = 0;

  constructor(private readonly db: ReadModels, private readonly intervalMs = 200, private readonly maxBatch = 1000, private readonly maxBuffered = 50_000) {}

  add(projectId: string, entry: LogEntry): void {
    // A game may print NUL bytes; one such line must not fail its whole batch (PostgreSQL text refuses NUL).
    this.buffer.push({ ...entry, message: storableText(entry.message), projectId });
    if (this.buffer.length > this.maxBuffered) this.drop(this.buffer.length - this.maxBuffered);
    if (this.buffer.length >= this.maxBatch && this.retryMs === 0) void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.intervalMs);
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer.splice(0, this.maxBatch);
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() =>
      this.db
        .$transaction([
          this.db.logLine.createMany({ data: batch.map((e) => ({ serverId: e.serverId, projectId: e.projectId, ts: e.timestamp, level: e.level, stream: e.stream, message: e.message })) }),
          addMinuteCounts(this.db, batch),
        ])
        .then(
          () => {
            this.retryMs = 0;
            if (this.buffer.length > 0 && !this.timer) this.timer = setTimeout(() => void this.flush(), 0);
          },
          (err) => {
            // Kept in front of newer lines (order holds) and written again after a backoff.
            this.buffer.unshift(...batch);
            if (this.buffer.length > this.maxBuffered) this.drop(this.buffer.length - this.maxBuffered);
            this.retryMs = Math.min(Math.max(this.retryMs * 2, 250), 5_000);
            log.error({ err }, `servers: writing game server log lines failed; ${this.buffer.length} lines kept, retrying in ${this.retryMs} ms`);
            if (this.timer) clearTimeout(this.timer);
            this.timer = setTimeout(() => void this.flush(), this.retryMs);
          },
        ),
    );
    return this.flushing;
  }

  /** On shutdown: every buffered line written, batch by batch, for as long as the database takes them (at most `maxMs`). */
  async drain(maxMs = 5_000): Promise<void> {
    const until = Date.now() + maxMs;
    do {
      const before = this.buffer.length;
      await this.flush();
      if (this.buffer.length >= before) break; // the database refuses: what is left is lost with this process
    } while (this.buffer.length > 0 && Date.now() < until);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private drop(n: number): void {
    this.buffer.splice(0, n);
    this.dropped += n;
    log.warn(`servers: the game log buffer is full while the database is unreachable; dropped the ${n} oldest lines (${this.dropped} in all)`);
  }
}

/**
 * One statement for the whole batch: its lines counted per (server, epoch-aligned minute) from three
 * arrays and added to log_minutes. info is every line that is neither warn nor error, as in the histogram
 * query. Rows are locked in key order (ORDER BY), so concurrent writers cannot deadlock on them.
 */
function addMinuteCounts(db: ReadModels, batch: BufferedEntry[]) {
  const serverIds = batch.map((e) => e.serverId);
  const ts = batch.map((e) => e.timestamp.toISOString());
  const levels = batch.map((e) => e.level as string);
  return db.$executeRaw`
    INSERT INTO log_minutes (server_id, minute, info, warn, error)
    SELECT b.server_id, date_bin(interval '1 minute', b.ts, timestamptz '1970-01-01T00:00:00Z'),
           count(*) FILTER (WHERE b.level <> 'warn' AND b.level <> 'error')::int,
           count(*) FILTER (WHERE b.level = 'warn')::int,
           count(*) FILTER (WHERE b.level = 'error')::int
    FROM unnest(${serverIds}::uuid[], ${ts}::timestamptz[], ${levels}::text[]) AS b(server_id, ts, level)
    GROUP BY 1, 2
    ORDER BY 1, 2
    ON CONFLICT (server_id, minute) DO UPDATE
      SET info = log_minutes.info + EXCLUDED.info, warn = log_minutes.warn + EXCLUDED.warn, error = log_minutes.error + EXCLUDED.error`;
}
