// One holder per key, decided on the key's own stream: "a player is in at most one lobby of a config"
// (key: project/config/player), "an invite code belongs to one live lobby" (key: project/code) and "a
// player searches in at most one lobby of the project" (key: project/player).
// The lobby stream decides capacity; the claim stream decides uniqueness, whichever replica writes.
import { conflict, Decider, DomainEvent } from '../kit';

export type ClaimState = { holder: string | null; since: string | null };

export type ClaimCommand =
  /** `holderGone`: the caller checked the current holder and found it no longer holds (lobby deleted,
   * player not a member for a while) — a claim left behind by a crash does not block forever. */
  | { type: 'Claim'; key: string; holder: string; holderGone: boolean; now: string }
  | { type: 'Release'; key: string; holder: string; now: string };

export type Claimed = DomainEvent<'Claimed', { key: string; holder: string; at: string }>;
export type Released = DomainEvent<'Released', { key: string; holder: string; at: string }>;
export type ClaimEvent = Claimed | Released;

function decide(command: ClaimCommand, state: ClaimState): ClaimEvent[] {
  const { key, holder, now: at } = command;
  switch (command.type) {
    case 'Claim':
      if (state.holder === holder) return [];
      if (state.holder !== null && !command.holderGone) throw conflict(`${key} is held by ${state.holder}`);
      return [{ type: 'Claimed', data: { key, holder, at } }];
    case 'Release':
      // Only the holder releases; a late release by a former holder changes nothing.
      return state.holder === holder ? [{ type: 'Released', data: { key, holder, at } }] : [];
  }
}

function evolve(state: ClaimState, event: ClaimEvent): ClaimState {
  return event.type === 'Claimed' ? { holder: event.data.holder, since: event.data.at } : { holder: null, since: null };
}

export const claimDecider: Decider<ClaimCommand, ClaimEvent, ClaimState> = { initialState: { holder: null, since: null }, decide, evolve };

/** Stream of "which lobby of this config is the player in". */
export const lobbyMemberStream = (projectId: string, config: string, playerId: string) =>
  `lobbyMember-${projectId}:${encodeURIComponent(config)}:${encodeURIComponent(playerId)}`;
/** Stream of "which live lobby of the project has this invite code". */
export const lobbyCodeStream = (projectId: string, code: string) => `lobbyCode-${projectId}:${encodeURIComponent(code)}`;
/** Stream of "which lobby of the project is this player searching in" (one active search per player per project). */
export const lobbySearchStream = (projectId: string, playerId: string) => `lobbySearch-${projectId}:${encodeURIComponent(playerId)}`;
