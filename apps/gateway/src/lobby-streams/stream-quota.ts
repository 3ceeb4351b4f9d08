// Open event streams per API key on one gateway (ADR-0020). Streams draw on no rate-limit bucket (a
// reconnecting client must not be locked out of its events), so without a cap one key (or one leaked
// key) could hold any number of connections open. Over the cap a new stream is refused with 429; open
// ones are never cut. The cap counts every stream opened with the key: the player streams of v3 and the
// legacy API (client key) and the project streams (server key).
import { Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { RemoteError } from '@spawnpoint/messaging';
import type { Principal } from '@spawnpoint/proto';

/** Sized for every player of a game on one gateway replica at once; a fuse against one key, not a plan limit. */
export const DEFAULT_MAX_STREAMS_PER_KEY = 10_000;

export function maxStreamsPerKey(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SPAWNPOINT_MAX_STREAMS_PER_KEY;
  if (raw === undefined || raw === '') return DEFAULT_MAX_STREAMS_PER_KEY;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`SPAWNPOINT_MAX_STREAMS_PER_KEY must be a whole number ≥ 1, not "${raw}"`);
  return value;
}

/** A reserved stream: held until its response closes, or given back if the stream never opens. */
export interface StreamSlot {
  holdUntilClosed(res: ServerResponse): void;
  release(): void;
}

@Injectable()
export class StreamQuota {
  private readonly open = new Map<string, number>();
  readonly max = maxStreamsPerKey();

  /** One key of a project: its server key or its client key (a rotated key counts as the same). */
  static keyOf(principal: Pick<Principal, 'projectId' | 'kind'>): string {
    return `${principal.projectId}:${principal.kind}`;
  }

  /** Reserves a stream for the key before any work is spent on it; 429 when the key holds `max`. */
  reserve(principal: Pick<Principal, 'projectId' | 'kind'>): StreamSlot {
    const key = StreamQuota.keyOf(principal);
    const count = this.open.get(key) ?? 0;
    if (count >= this.max) {
      throw new RemoteError({ error: `Too many open event streams for this API key (at most ${this.max} on one gateway)`, status: 429 });
    }
    this.open.set(key, count + 1);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
    return {
      release,
      holdUntilClosed: (res) => {
        if (res.destroyed || res.writableEnded) release();
        else res.once('close', release);
      },
    };
  }

  /** Open streams of the key (tests, metrics). */
  count(principal: Pick<Principal, 'projectId' | 'kind'>): number {
    return this.open.get(StreamQuota.keyOf(principal)) ?? 0;
  }
}
