// The write path of every lobby change: decide and append on the lobby's stream (its contention lane:
// StateCache, optimistic on the cached state), then release the claims of departed players and of a
// dropped invite code, and broadcast the change (a deleted lobby's server: the lobby-launch workflow stops it).
import { Inject, Injectable } from '@nestjs/common';
import { LobbyCommand, LobbyConfig, LobbyEvent, lobbyCodeStream, lobbyDecider, lobbyMemberStream, LobbyState, lobbyStream, LobbyView } from '@spawnpoint/domain';
import { PLATFORM, Platform } from '@spawnpoint/platform';
import { LobbyBroadcast } from './lobby-broadcast';
import { LobbyClaims } from './lobby-claims';
import { isLive, LobbyStates } from './lobby-states';
import { lobbyUpdate } from './lobby-views';

/** `view`: the lobby as broadcast after the change (null when nothing changed or it is gone): the reply reuses it. */
export interface Ran { state: LobbyState; events: LobbyEvent[]; revision: number; view: LobbyView | null; repeated?: boolean }

@Injectable()
export class LobbyWrites {
  constructor(
    @Inject(PLATFORM) private readonly platform: Platform, private readonly states: LobbyStates, private readonly claims: LobbyClaims,
    private readonly broadcast: LobbyBroadcast,
  ) {}

  /** The injected clock, as the commands carry it. */
  now(): string {
    return this.platform.clock().toISOString();
  }

  /**
   * Decide and append on the lobby's stream; then release claims of departed players and broadcast. It
   * does not wait for the read model (no ServiceReadModel.command): lobby answers come from the decided
   * state, and the reads that use the read model wait themselves (browse settles), so a join under load
   * is not held behind the projection's batch. `commandId`: recorded on the events (a workflow's intent
   * key; a bus command's own id is taken from its context). `once`: a workflow's intent, applied at most
   * once: when an event already carries `commandId`, nothing happens and the answer is `repeated`.
   */
  async run(
    projectId: string, lobbyId: string, command: LobbyCommand | ((s: LobbyState) => LobbyCommand), commandId?: string, options: { once?: boolean } = {},
  ): Promise<Ran> {
    let before: LobbyState = lobbyDecider.initialState;
    const result = await this.states.lobbies.execute(lobbyStream(lobbyId), (s: LobbyState) => {
      before = s;
      return typeof command === 'function' ? command(s) : command;
    }, commandId ? { projectId, commandId } : { projectId }, { optimistic: true, once: options.once ? commandId : undefined });
    if (result.events.length === 0) return { ...result, view: null };
    const removed: string[] = [];
    let deleted: { reason: string } | null = null;
    let matchFound = false;
    for (const e of result.events) {
      if (e.type === 'LobbyMatchFound') matchFound = true;
      if (e.type === 'PlayerLeft' || e.type === 'PlayerKicked') removed.push(e.data.playerId);
      if (e.type === 'LobbyDeleted') deleted = { reason: e.data.reason };
    }
    const prior = isLive(before) ? before : null;
    if (deleted && prior) removed.push(...prior.players.map((p) => p.id).filter((id) => !removed.includes(id)));
    const config = prior?.config ?? (isLive(result.state) ? result.state.config : '');
    await Promise.all(removed.map((p) => this.claims.release(lobbyMemberStream(projectId, config, p), lobbyId)));
    const codeBefore = prior?.code ?? null;
    const codeAfter = isLive(result.state) ? result.state.code : null;
    if (codeBefore && codeBefore !== codeAfter) await this.claims.release(lobbyCodeStream(projectId, codeBefore), lobbyId);
    // The lobby's server is stopped by the lobby-launch workflow (StopLobbyServer, retried until it gets through).
    const update = lobbyUpdate({ projectId, config, lobbyId, revision: result.revision }, result.state, deleted, removed, matchFound);
    await this.broadcast.send(update);
    return { ...result, view: update.lobby as LobbyView | null };
  }

  async deleteLobby(projectId: string, lobbyId: string, reason: 'admin' | 'idle' | 'host_left'): Promise<void> {
    await this.run(projectId, lobbyId, { type: 'DeleteLobby', reason, now: this.now() });
  }

  /** Members silent past the config's heartbeatTimeout, removed (used by the sweeper). */
  async removeStale(projectId: string, lobbyId: string, playerIds: string[], config: LobbyConfig): Promise<void> {
    await this.run(projectId, lobbyId, { type: 'RemoveStalePlayers', playerIds, hostLeaveBehavior: config.hostLeaveBehavior, now: this.now() });
  }
}
