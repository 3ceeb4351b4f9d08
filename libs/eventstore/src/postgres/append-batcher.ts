// Group commit for appends. The global append lock makes each append transaction wait for the previous
// one's WAL flush, so appends arriving while a call is in flight are sent together in the next call,
// as one transaction: concurrent writers share a flush instead of queueing on the lock one by one.
import type { Pool } from 'pg';
import { AppendResult, EventMetadata, ExpectedRevision, WrongExpectedVersion } from '../event-store';
import { WRONG_EXPECTED_VERSION_SQLSTATE } from './schema';

export interface EventPayload {
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

interface PendingAppend {
  stream: string;
  expected: ExpectedRevision;
  events: EventPayload[];
  resolve(result: AppendResult): void;
  reject(err: unknown): void;
}

interface BatchResult {
  ok: boolean;
  revision: number;
  position: string | null;
}

const MAX_BATCH = 100;
const UNIQUE_VIOLATION = '23505';
const STREAM_REVISION_CONSTRAINT = 'events_stream_id_revision_key';

export class AppendBatcher {
  private queue: PendingAppend[] = [];
  private sending = false;

  constructor(private readonly pool: Pool) {}

  append(stream: string, expected: ExpectedRevision, events: EventPayload[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ stream, expected, events, resolve, reject });
      if (!this.sending) void this.send();
    });
  }

  /** One call in flight at a time; an append arriving while idle goes at once, on its own. */
  private async send(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        await (batch.length === 1 ? this.appendOne(batch[0]) : this.appendMany(batch));
      }
    } finally {
      this.sending = false;
    }
  }

  private async appendOne(append: PendingAppend): Promise<void> {
    try {
      const { rows } = await this.pool.query<{ next_revision: number; last_position: string }>({
        name: 'spawnpoint_append_events',
        text: 'SELECT next_revision, last_position FROM append_events($1, $2, $3)',
        values: [append.stream, String(append.expected), JSON.stringify(append.events)],
      });
      append.resolve({ nextRevision: rows[0].next_revision, position: BigInt(rows[0].last_position) });
    } catch (err) {
      append.reject(await this.toWrongExpectedVersion(err, append));
    }
  }

  private async appendMany(batch: PendingAppend[]): Promise<void> {
    let results: BatchResult[];
    try {
      const appends = batch.map((a) => ({ stream: a.stream, expected: String(a.expected), events: a.events }));
      const { rows } = await this.pool.query<{ results: BatchResult[] }>({
        name: 'spawnpoint_append_events_batch',
        text: 'SELECT append_events_batch($1) AS results',
        values: [JSON.stringify(appends)],
      });
      results = rows[0].results;
    } catch {
      // One bad append (e.g. a reused event id) rolls back the whole batch: retry each alone so only it fails.
      await Promise.all(batch.map((a) => this.appendOne(a)));
      return;
    }
    batch.forEach((append, i) => {
      const { ok, revision, position } = results[i];
      if (ok) append.resolve({ nextRevision: revision, position: BigInt(position ?? 0) });
      else append.reject(new WrongExpectedVersion(append.stream, append.expected, revision));
    });
  }

  private async toWrongExpectedVersion(err: unknown, { stream, expected }: PendingAppend): Promise<unknown> {
    const pgError = err as { code?: string; detail?: string; constraint?: string };
    if (pgError.code === WRONG_EXPECTED_VERSION_SQLSTATE) {
      return new WrongExpectedVersion(stream, expected, Number(pgError.detail));
    }
    // The append lock makes this unreachable in principle; should it happen, it is still a conflict.
    if (pgError.code === UNIQUE_VIOLATION && pgError.constraint === STREAM_REVISION_CONSTRAINT) {
      const { rows } = await this.pool
        .query<{ revision: number }>(
          'SELECT coalesce(max(revision), -1) AS revision FROM events WHERE stream_id = $1',
          [stream],
        )
        .catch(() => ({ rows: [] }));
      if (rows.length) return new WrongExpectedVersion(stream, expected, rows[0].revision);
    }
    return err;
  }
}
