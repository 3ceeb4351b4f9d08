// Bus headers <-> NATS headers.
import { headers as natsHeaders, type MsgHdrs } from 'nats';
import type { Headers } from '../bus';

export function toNatsHeaders(headers: Headers): MsgHdrs | undefined {
  const keys = Object.keys(headers);
  if (keys.length === 0) return undefined;
  const out = natsHeaders();
  for (const key of keys) out.set(key, headers[key]);
  return out;
}

/** `Nats-*` headers are the server's (e.g. Nats-Msg-Id); handlers see only what the sender set, as in-process. */
export function fromNatsHeaders(headers: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!headers) return out;
  for (const key of headers.keys()) {
    if (!key.startsWith('Nats-')) out[key] = headers.get(key);
  }
  return out;
}
