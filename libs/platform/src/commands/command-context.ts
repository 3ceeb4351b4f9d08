// Commands carry an id (the `command-id` bus header, see @spawnpoint/messaging command-context): each
// appended event records it, and a command re-sent with the same id and payload while the first is in
// flight, or shortly after, gets the first one's outcome instead of running again.
import { createHash } from 'node:crypto';
import { currentCommand } from '@spawnpoint/messaging';
import { toErrorBody } from './errors';

/** The current command's id for event metadata (empty outside a command). */
export function commandMetadata(): { commandId?: string } {
  const ctx = currentCommand();
  return ctx ? { commandId: ctx.commandId } : {};
}

/**
 * A UUID-shaped id that only this command of this project produces (for what the command creates), so a
 * command sent again after a restart finds what its first run created instead of creating it twice.
 */
export function idFromCommand(kind: string, projectId: string, commandId: string): string {
  const h = createHash('sha256').update(`${kind}\n${projectId}\n${commandId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Outcomes of recent commands by (subject, command id, payload): a re-sent command joins the first run
 * (in flight) or gets its answer (done). Kept `ttlMs` and at most `capacity` entries. Failures that may
 * be transient (5xx) are forgotten at once so a retry runs again.
 */
export class RecentCommands {
  private readonly entries = new Map<string, { at: number; outcome: Promise<unknown> }>();

  constructor(private readonly ttlMs = 5 * 60_000, private readonly capacity = 10_000, private readonly now = () => Date.now()) {}

  run<T>(subject: string, commandId: string, payload: unknown, work: () => Promise<T>): Promise<T> {
    const key = `${subject}\n${commandId}\n${createHash('sha256').update(JSON.stringify(payload ?? null)).digest('base64')}`;
    const now = this.now();
    const seen = this.entries.get(key);
    if (seen && now - seen.at < this.ttlMs) return seen.outcome as Promise<T>;
    this.evict(now);
    const outcome = work();
    const entry = { at: now, outcome };
    this.entries.set(key, entry);
    outcome.catch((err) => {
      if (toErrorBody(err).status >= 500 && this.entries.get(key) === entry) this.entries.delete(key);
    });
    return outcome;
  }

  get size(): number {
    return this.entries.size;
  }

  private evict(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.at < this.ttlMs && this.entries.size < this.capacity) break;
      this.entries.delete(key);
    }
  }
}
