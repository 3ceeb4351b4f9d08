// Game output is buffered and written in batches: a chatty game must not cost a round trip a line.
import type { ReadModels } from '@spawnpoint/read-models';
import { LogEntry } from '@spawnpoint/runtime';

export class LogWriter {
  private buffer: (LogEntry & { projectId: string })[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly db: ReadModels, private readonly intervalMs = 200, private readonly maxBatch = 1000) {}

  add(projectId: string, entry: LogEntry): void {
    this.buffer.push({ ...entry, projectId });
    if (this.buffer.length >= this.maxBatch) void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.intervalMs);
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() =>
      this.db.logLine
        .createMany({ data: batch.map((e) => ({ serverId: e.serverId, projectId: e.projectId, ts: e.timestamp, level: e.level, stream: e.stream, message: e.message })) })
        .then(() => undefined, (err) => console.error('log write failed', err)),
    );
    return this.flushing;
  }
}
