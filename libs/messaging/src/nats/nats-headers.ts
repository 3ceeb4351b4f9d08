// Bus headers <-> NATS headers.
import { headers as natsHeaders, type MsgHdrs } from 'nats';
import type { Headers } from '../bus';
import { isBodyHeader } from './body-outbox';
import { isPartsHeader } from './broadcast-parts';

export function toNatsHeaders(headers: Headers): MsgHdrs | undefined {
  const keys = Object.keys(headers);
  if (keys.length === 0) return undefined;
  const out = natsHeaders();
  for (const key of keys) out.set(key, headers[key]);
  return out;
}

/**
 * `Nats-*` headers are the server's (e.g. Nats-Msg-Id), `Spawnpoint-Body*` / `Spawnpoint-Parts*` the bus's own
 * (ADR-0019); handlers see only what the sender set, as in-process.
 */
export function fromNatsHeaders(headers: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!headers) return out;
  for (const key of headers.keys()) {
    if (!key.startsWith('Nats-') && !isBodyHeader(key) && !isPartsHeader(key)) out[key] = headers.get(key);
  }
  return out;
}
