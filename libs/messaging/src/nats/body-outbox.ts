// Request and reply bodies over the message limit travel by reference (ADR-0019): the sender keeps the body
// here and sends a message with only the reference headers; the receiver pulls it with one request whose
// answer is the body in parts (each a message under the limit, with its offset), reassembled into a buffer
// of the announced size. A lost part, a sender gone or a body already taken is an error, never a hang.
import { Empty, headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection, nuid, RequestStrategy, type Subscription } from 'nats';
import { logger } from '@spawnpoint/logging';

const log = logger('bus');

/** Headers of a message whose body is held by its sender. */
export const BODY_SUBJECT = 'Spawnpoint-Body';
const BODY_PARTS = 'Spawnpoint-Body-Parts';
const BODY_SIZE = 'Spawnpoint-Body-Size';
/** On each part of a pulled body: where it goes. */
const PART_OFFSET = 'Spawnpoint-Body-Offset';
/** Answer to a pull of a body that is no longer held (taken, expired): the puller fails at once. */
const BODY_GONE = 'Spawnpoint-Body-Gone';

/** Header names of this mechanism: not shown to handlers (like NATS's own). */
export const isBodyHeader = (key: string): boolean => key.startsWith(BODY_SUBJECT);

export class BodyUnavailable extends Error {
  constructor(reason: string) {
    super(`body by reference: ${reason}`);
    this.name = 'BodyUnavailable';
  }
}

interface Held {
  data: Uint8Array;
  partBytes: number;
  /** A reply is pulled once; a request body until the request is settled (a redelivered pull finds it). */
  once: boolean;
  timer: NodeJS.Timeout;
}

export interface BodyOffer {
  headers: Record<string, string>;
  /** Forget the body (the request it belongs to is settled). */
  release(): void;
}

/** Bodies this connection holds for pulling, served on `_SPAWNPOINT_BODY.<connection>.<token>`. */
export class BodyOutbox {
  private readonly prefix = `_SPAWNPOINT_BODY.${nuid.next()}`;
  private readonly bodies = new Map<string, Held>();
  private sub?: Subscription;

  constructor(private readonly nc: NatsConnection, private readonly partBytes: () => number) {}

  /** Subscribes; call (and await the connection's flush) before the first offer. */
  start(): void {
    this.sub = this.nc.subscribe(`${this.prefix}.*`, {
      callback: (err, msg) => {
        if (err) return log.error({ err }, 'bus: body outbox subscription failed');
        this.serve(msg);
      },
    });
  }

  get held(): number {
    return this.bodies.size;
  }

  /** Holds `data` for at most `ttlMs` and returns the headers that refer to it. */
  offer(data: Uint8Array, ttlMs: number, once: boolean): BodyOffer {
    const token = nuid.next();
    const partBytes = this.partBytes();
    const timer = setTimeout(() => this.bodies.delete(token), ttlMs);
    timer.unref();
    this.bodies.set(token, { data, partBytes, once, timer });
    return {
      headers: { [BODY_SUBJECT]: `${this.prefix}.${token}`, [BODY_PARTS]: String(Math.ceil(data.length / partBytes)), [BODY_SIZE]: String(data.length) },
      release: () => this.drop(token),
    };
  }

  stop(): void {
    this.sub?.unsubscribe();
    for (const token of [...this.bodies.keys()]) this.drop(token);
  }

  private serve(msg: Msg): void {
    if (!msg.reply) return;
    const token = msg.subject.slice(this.prefix.length + 1);
    const held = this.bodies.get(token);
    if (!held) {
      const h = natsHeaders();
      h.set(BODY_GONE, '1');
      this.nc.publish(msg.reply, Empty, { headers: h });
      return;
    }
    if (held.once) this.drop(token);
    // From one connection to one subscriber NATS keeps the order; the offsets make order irrelevant anyway.
    for (let offset = 0; offset < held.data.length; offset += held.partBytes) {
      const h = natsHeaders();
      h.set(PART_OFFSET, String(offset));
      this.nc.publish(msg.reply, held.data.subarray(offset, offset + held.partBytes), { headers: h });
    }
  }

  private drop(token: string): void {
    const held = this.bodies.get(token);
    if (!held) return;
    clearTimeout(held.timer);
    this.bodies.delete(token);
  }
}

/** The message's body: its own data, or the body its headers refer to, pulled within `timeoutMs` and at most `maxBytes`. */
export async function bodyOf(nc: NatsConnection, msg: Pick<Msg, 'data' | 'headers'>, timeoutMs: number, maxBytes: number): Promise<Uint8Array> {
  const subject = msg.headers?.get(BODY_SUBJECT);
  return subject ? pullBody(nc, subject, msg.headers!, timeoutMs, maxBytes) : msg.data;
}

async function pullBody(nc: NatsConnection, subject: string, h: MsgHdrs, timeoutMs: number, maxBytes: number): Promise<Uint8Array> {
  const parts = Number(h.get(BODY_PARTS));
  const size = Number(h.get(BODY_SIZE));
  if (!Number.isSafeInteger(parts) || parts < 1 || !Number.isSafeInteger(size) || size < parts) throw new BodyUnavailable(`malformed reference (${parts} parts, ${size} bytes)`);
  if (size > maxBytes) throw new BodyUnavailable(`${size} bytes is over the bound of ${maxBytes}`);
  const out = new Uint8Array(size);
  const offsets = new Set<number>();
  let filled = 0;
  const messages = await nc.requestMany(subject, Empty, { strategy: RequestStrategy.Count, maxMessages: parts, maxWait: timeoutMs });
  for await (const m of messages) {
    if (m.headers?.has(BODY_GONE)) throw new BodyUnavailable('the sender no longer holds it');
    const offset = Number(m.headers?.get(PART_OFFSET));
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + m.data.length > size || offsets.has(offset)) throw new BodyUnavailable(`malformed part at ${offset}`);
    offsets.add(offset);
    out.set(m.data, offset);
    filled += m.data.length;
  }
  // requestMany ends quietly at maxWait: fewer parts than announced is a lost part.
  if (offsets.size !== parts || filled !== size) throw new BodyUnavailable(`timeout: ${offsets.size} of ${parts} parts (${filled} of ${size} bytes) within ${timeoutMs} ms`);
  return out;
}
