// "One lobby per player per config" and "one live lobby per invite code", each on a claim stream of its
// own (claim.ts in the domain), so any number of replicas stay exact. A claim whose holder is gone (the
// lobby deleted, the player not in it past a grace period) is taken over at the revision read.
import { Inject, Injectable } from '@nestjs/common';
import { ClaimCommand, ClaimState, DomainError, InviteCodeConfig, lobbyCodeStream, lobbyMemberStream, lobbySearchStream, SEARCHING } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ClaimStates } from './claim-states';
import { inviteCode } from './invite-code';
import { isLive, LobbyStates } from './lobby-states';

/** A claim whose holder has not (yet) shown it in the lobby is respected this long: an in-flight join. */
const CLAIM_GRACE_MS = 10_000;

@Injectable()
export class LobbyClaims {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly states: LobbyStates, private readonly claims: ClaimStates) {}

  /** Claims the player for `lobbyId` (409 when in another live lobby of the config); true if newly claimed. */
  membership(projectId: string, config: string, playerId: string, lobbyId: string): Promise<boolean> {
    return this.claim(lobbyMemberStream(projectId, config, playerId), lobbyId, async (holder, since) => {
      const { state } = await this.states.load(holder);
      if (state.status === 'deleted') return true;
      if (isLive(state) && state.players.some((p) => p.id === playerId)) return false;
      return this.graceOver(since);
    }, () => new DomainError('conflict', `player is already in a lobby of config ${config}`));
  }

  /**
   * Claims the player's one search in the project for `lobbyId` (409 while the player searches in another
   * lobby: in_queue, match_found or matched there, or held by a match). A claim of a lobby that does not
   * search (any more), or no longer has the player, is taken over. Two starts racing in two lobbies may
   * both take it; the one that finds it taken from it after its start (`stillSearching`) gives way.
   */
  search(projectId: string, playerId: string, lobbyId: string): Promise<boolean> {
    return this.claim(lobbySearchStream(projectId, playerId), lobbyId, async (holder) => {
      const { state } = await this.states.load(holder);
      return !isLive(state) || !state.players.some((p) => p.id === playerId) || (!SEARCHING.has(state.status) && !state.matchmaking);
    }, () => new DomainError('conflict', `player ${playerId} is already searching for a match in another lobby`));
  }

  /** The player's search claim is still `lobbyId`'s (read again, after the start). */
  async searching(projectId: string, playerId: string, lobbyId: string): Promise<boolean> {
    return (await this.claims.load(lobbySearchStream(projectId, playerId))).state.holder === lobbyId;
  }

  /** A code of `codes` no live lobby of the project holds, claimed for `lobbyId`. */
  async freeCode(projectId: string, codes: InviteCodeConfig, lobbyId: string): Promise<string> {
    for (let i = 0; i < 20; i++) {
      const code = inviteCode(codes);
      const taken = await this.claim(lobbyCodeStream(projectId, code), lobbyId, async (holder, since) => {
        const { state } = await this.states.load(holder);
        if (state.status === 'deleted') return true;
        if (isLive(state) && state.code === code) return false;
        return this.graceOver(since);
      }, () => null).then(() => false, (err) => {
        if (err === null) return true;
        throw err;
      });
      if (!taken) return code;
    }
    throw new DomainError('conflict', 'could not find a free invite code; make inviteCodeConfig.length longer');
  }

  /** Best effort: a release lost to a crash is healed by the next claim's holder check. */
  release(stream: string, holder: string): Promise<void> {
    return this.claims.release(stream, holder);
  }

  /**
   * Claims `stream` for `holder`; true when newly claimed. The common case (free, or ours) is one
   * read and one append; a held claim is taken over only if `holderGone` says so, at the revision read.
   */
  private async claim(stream: string, holder: string, holderGone: (holder: string, since: string) => Promise<boolean>, taken: () => unknown): Promise<boolean> {
    const attempt = async (takeOver: ClaimState | null) => (await this.claims.handle(stream, (s): ClaimCommand => ({
      type: 'Claim', key: stream, holder, holderGone: takeOver !== null && s.holder === takeOver.holder && s.since === takeOver.since, now: this.now(),
    }))).events.length > 0;
    try {
      return await attempt(null);
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'conflict')) throw err;
    }
    const { state } = await this.claims.load(stream);
    if (state.holder !== null && state.holder !== holder && !(await holderGone(state.holder, state.since!))) throw taken();
    try {
      return await attempt(state);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'conflict') throw taken();
      throw err;
    }
  }

  private graceOver(since: string): boolean {
    return this.platform.clock().getTime() - Date.parse(since) > CLAIM_GRACE_MS;
  }

  private now(): string {
    return this.platform.clock().toISOString();
  }
}
