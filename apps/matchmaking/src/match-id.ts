// A match's id, from its lobbies and their tickets: a step repeated after a crash (of the process or of the
// queue worker, which computes it) proposes the same id, which the Match decider answers without a second match.
import { createHash } from 'node:crypto';
import type { MatchLobby } from '@spawnpoint/domain';

/** UUID-shaped, the same for the same proposal. */
export function matchIdOf(lobbies: MatchLobby[]): string {
  const h = createHash('sha256').update(lobbies.map((l) => `${l.lobbyId}@${l.ticket}`).sort().join(',')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The book's key of a lobby held for a fill of this match. */
export const fillKey = (matchId: string) => `fill:${matchId}`;
