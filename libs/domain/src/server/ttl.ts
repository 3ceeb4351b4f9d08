// When a server's TTL runs out: counted from started_at, or, for a pool server, from its claim
// (a pool server waits unclaimed for as long as it must; the caller's ttl starts when it is theirs).
import { ServerState } from './state';

export function ttlDeadline(state: ServerState): Date | null {
  if (state.status === 'none' || state.status === 'stopped' || state.ttl === null) return null;
  const from = state.isPoolServer ? state.poolClaimedAt : state.startedAt;
  if (!from) return null;
  return new Date(Date.parse(from) + state.ttl * 1000);
}
