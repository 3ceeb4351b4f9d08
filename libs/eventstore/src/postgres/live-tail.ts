// The live tail of one store: caught-up subscriptions join it, and it reads the new events once per
// wake-up for all of them (instead of one query each), handing each member the events it wants.
// Members keep their own queues and positions, so a slow one never holds up the others.
import type { Pool } from 'pg';
import type { RecordedEvent } from '../event-store';
import type { AppendNotifier } from './append-notifier';
import { readAllEvents } from './event-queries';

export const PAGE_SIZE = 500;
export const POLL_INTERVAL_MS = 1000;

export interface TailMember {
  /** Every wanted event up to here has been given to the member (read by itself or by the tail). */
  readonly cursor: bigint;
  /** Categories wanted; none means all. */
  readonly categories?: string[];
  /** The events of one tail read, in position order; `last` is the position read up to (none if empty). */
  offer(events: RecordedEvent[], last: bigint | undefined): void;
}

export class LiveTail {
  private readonly members = new Set<TailMember>();
  private running?: Promise<void>;
  private removeListener?: () => Promise<void>;
  /** A wake-up arrived while reading: read again before sleeping. */
  private woken = false;
  private sleepTimer?: NodeJS.Timeout;
  private endSleep?: () => void;
  /** The union of the members' categories, until they change (null: to compute). */
  private union: string[] | undefined | null = null;

  constructor(
    private readonly pool: Pool,
    private readonly notifier: AppendNotifier,
  ) {}

  join(member: TailMember): void {
    this.members.add(member);
    this.union = null;
    this.removeListener ??= this.notifier.add((position) => {
      if (position === undefined || position > this.lowestCursor()) this.wake();
    });
    if (this.running) this.wake();
    else this.running = this.run();
  }

  /** Stops the reading (and the LISTEN connection) with the last member, so close() leaves no handles. */
  async leave(member: TailMember): Promise<void> {
    if (!this.members.delete(member)) return;
    this.union = null;
    if (this.members.size > 0) return;
    this.wake();
    await this.running;
    if (this.members.size === 0 && this.removeListener) {
      const remove = this.removeListener;
      this.removeListener = undefined;
      await remove();
    }
  }

  wake(): void {
    this.woken = true;
    clearTimeout(this.sleepTimer);
    this.endSleep?.();
    this.endSleep = undefined;
  }

  private async run(): Promise<void> {
    try {
      while (this.members.size > 0) {
        this.woken = false;
        const members = [...this.members];
        let page: RecordedEvent[];
        try {
          page = await readAllEvents(this.pool, {
            fromPosition: this.lowestCursor(),
            categories: this.union === null ? (this.union = unionOfCategories(members)) : this.union,
            limit: PAGE_SIZE,
          });
        } catch {
          // The database may be restarting: nothing was handed out, so try again on the next poll.
          await this.sleep();
          continue;
        }
        const last = page.length ? page[page.length - 1].position : undefined;
        // Members that joined during the read are served by the next one (join woke us).
        for (const member of members) if (this.members.has(member)) member.offer(page, last);
        if (page.length < PAGE_SIZE && !this.woken) await this.sleep();
      }
    } finally {
      this.running = undefined;
    }
  }

  private lowestCursor(): bigint {
    let lowest: bigint | undefined;
    for (const m of this.members) if (lowest === undefined || m.cursor < lowest) lowest = m.cursor;
    return lowest ?? 0n;
  }

  /** The poll is the safety net for notifications lost while the LISTEN connection reconnects. */
  private sleep(): Promise<void> {
    if (this.members.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.endSleep = resolve;
      this.sleepTimer = setTimeout(resolve, POLL_INTERVAL_MS);
    });
  }
}

/** One filter for the shared read: the union of the members' categories, or none if any wants all. */
function unionOfCategories(members: TailMember[]): string[] | undefined {
  if (members.some((m) => !m.categories?.length)) return undefined;
  return [...new Set(members.flatMap((m) => m.categories ?? []))];
}
