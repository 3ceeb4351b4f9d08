// How large a NATS message of ours may be: the server's max_payload (from its INFO, so a server configured
// smaller or larger is followed) less room for the headers, which count against the same limit.
import type { NatsConnection } from 'nats';

/** Trace context, command id and our part headers stay far below this. */
const HEADER_ROOM_BYTES = 16 * 1024;
/** NATS's default max_payload, for a connection that has not received INFO yet. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** Never split a body into parts smaller than this (a server with a tiny max_payload still gets sane parts). */
const MIN_PART_BYTES = 4 * 1024;

/** Bytes of body one message carries; a body over this travels in parts (ADR-0019). `cap`: a lower bound set by the bus's options. */
export function messageLimit(nc: NatsConnection, cap = Infinity): number {
  const maxPayload = nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  return Math.max(MIN_PART_BYTES, Math.min(maxPayload, cap) - HEADER_ROOM_BYTES);
}
