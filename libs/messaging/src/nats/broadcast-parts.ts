// A broadcast over the message limit is published in parts on its own subject (ADR-0019): every listener
// receives every part, so each reassembles it; nothing is held for pulling (a broadcast has no known set of
// receivers). An incomplete message is dropped after a timeout, like a lost broadcast; the bytes being
// reassembled at once are bounded.
import { headers as natsHeaders, type MsgHdrs, nuid } from 'nats';
import { logger } from '@spawnpoint/logging';

const log = logger('bus');

const PARTS_ID = 'Spawnpoint-Parts-Id';
const PARTS = 'Spawnpoint-Parts';
const PARTS_SIZE = 'Spawnpoint-Parts-Size';
const PART_OFFSET = 'Spawnpoint-Parts-Offset';

export const isPartsHeader = (key: string): boolean => key.startsWith('Spawnpoint-Parts');

/** The messages to publish for `data`: one part per `partBytes`, each with the part headers and `extra` (trace context). */
export function splitBroadcast(data: Uint8Array, partBytes: number, extra: Record<string, string>): { data: Uint8Array; headers: MsgHdrs }[] {
  const id = nuid.next();
  const parts = Math.ceil(data.length / partBytes);
  const out: { data: Uint8Array; headers: MsgHdrs }[] = [];
  for (let offset = 0; offset < data.length; offset += partBytes) {
    const h = natsHeaders();
    for (const [k, v] of Object.entries(extra)) h.set(k, v);
    h.set(PARTS_ID, id);
    h.set(PARTS, String(parts));
    h.set(PARTS_SIZE, String(data.length));
    h.set(PART_OFFSET, String(offset));
    out.push({ data: data.subarray(offset, offset + partBytes), headers: h });
  }
  return out;
}

interface Assembly {
  buf: Uint8Array;
  parts: number;
  offsets: Set<number>;
  timer: NodeJS.Timeout;
}

/** One per subscription: gathers the parts of each message by id. */
export class BroadcastAssembler {
  private readonly pending = new Map<string, Assembly>();
  private pendingBytes = 0;

  constructor(private readonly subject: string, private readonly maxBytes: number, private readonly timeoutMs: number) {}

  /** The message's whole body: `data` itself when it is not a part; for a part, the body once its last part came, else undefined. */
  add(data: Uint8Array, h: MsgHdrs | undefined): Uint8Array | undefined {
    const id = h?.get(PARTS_ID);
    if (!id) return data;
    let a = this.pending.get(id);
    if (!a) {
      const parts = Number(h!.get(PARTS));
      const size = Number(h!.get(PARTS_SIZE));
      if (!Number.isSafeInteger(parts) || parts < 1 || !Number.isSafeInteger(size) || size < parts) return this.drop(id, `malformed parts header (${parts} parts, ${size} bytes)`);
      if (this.pendingBytes + size > this.maxBytes) return this.drop(id, `${size} bytes would pass the bound of ${this.maxBytes} being reassembled`);
      const timer = setTimeout(() => this.drop(id, `${this.pending.get(id)?.offsets.size ?? 0} of ${parts} parts within ${this.timeoutMs} ms`), this.timeoutMs);
      timer.unref();
      a = { buf: new Uint8Array(size), parts, offsets: new Set(), timer };
      this.pending.set(id, a);
      this.pendingBytes += size;
    }
    const offset = Number(h!.get(PART_OFFSET));
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + data.length > a.buf.length || a.offsets.has(offset)) return this.drop(id, `malformed part at ${offset}`);
    a.buf.set(data, offset);
    a.offsets.add(offset);
    if (a.offsets.size < a.parts) return undefined;
    this.forget(id);
    return a.buf;
  }

  stop(): void {
    for (const id of [...this.pending.keys()]) this.forget(id);
  }

  private drop(id: string, reason: string): undefined {
    this.forget(id);
    log.warn(`bus: broadcast on ${this.subject} dropped: ${reason}`);
    return undefined;
  }

  private forget(id: string): void {
    const a = this.pending.get(id);
    if (!a) return;
    clearTimeout(a.timer);
    this.pending.delete(id);
    this.pendingBytes -= a.buf.length;
  }
}
