// The lookups every lobby use case starts from — the caller's lobby, a lobby of the project and config,
// the lobby holding an invite code — over the lobby and claim states of this process (read on from their
// cached revision: exact, one small query).
import { Injectable } from '@nestjs/common';
import { DomainError, LiveLobbyState, lobbyCodeStream, lobbyDecider, lobbyMemberStream, LobbyState, notFound } from '@spawnpoint/domain';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { AdminLobbyRequest, PlayerLobbyRequest } from '@spawnpoint/proto';
import { ClaimStates } from './claim-states';
import { LobbyAggregate } from './lobby-aggregate';
import { isLive } from './lobby-live';

export { isLive };

export interface MyLobby { lobbyId: string; state: LiveLobbyState; revision: number }

@Injectable()
export class LobbyStates {
  constructor(private readonly configs: LobbyConfigs, private readonly lobbies: LobbyAggregate, private readonly claims: ClaimStates) {}

  load(lobbyId: string): Promise<{ state: LobbyState; revision: number }> {
    return this.lobbies.load(lobbyId);
  }

  /** Project and config of a lobby never change: a cached state answers them without a read. */
  peekOrLoad(lobbyId: string): Promise<{ state: LobbyState; revision: number }> {
    const cached = this.lobbies.peek(lobbyId);
    return cached ? Promise.resolve(cached) : this.load(lobbyId);
  }

  /**
   * The caller's live lobby (the given one when `lobbyId` is set): 404 when not a member. `fresh: false`
   * (write paths) may answer from cached states: the write's append checks them, and a "not a member"
   * is confirmed on a read before it stands. Reads always read.
   */
  async mine(r: PlayerLobbyRequest, fresh = true): Promise<MyLobby> {
    const config = await this.configs.get(r.projectId, r.config);
    const claim = (stream: string) => (fresh ? undefined : this.claims.peek(stream)) ?? this.claims.load(stream);
    const lobby = (id: string) => (fresh ? undefined : this.lobbies.peek(id)) ?? this.load(id);
    const lobbyId = r.lobbyId ?? (await claim(lobbyMemberStream(r.projectId, config.name, r.playerId))).state.holder;
    const notIn = () => new DomainError('not_found', `player ${r.playerId} is not in a lobby of config ${config.name}`);
    const { state, revision } = lobbyId ? await lobby(lobbyId) : { state: lobbyDecider.initialState, revision: -1 };
    const member = isLive(state) && state.projectId === r.projectId && state.config === config.name && state.players.some((p) => p.id === r.playerId);
    if (!member || !lobbyId) {
      if (!fresh) return this.mine(r, true);
      throw r.lobbyId && !(isLive(state) && state.projectId === r.projectId && state.config === config.name) ? notFound('lobby') : notIn();
    }
    return { lobbyId, state: state as LiveLobbyState, revision };
  }

  /** A live lobby of the project and config (admin routes): 404 otherwise. */
  async owned(r: AdminLobbyRequest): Promise<LiveLobbyState> {
    const config = await this.configs.get(r.projectId, r.config);
    const { state } = await this.load(r.lobbyId);
    if (!isLive(state) || state.projectId !== r.projectId || state.config !== config.name) throw notFound('lobby');
    return state;
  }

  async withCode(projectId: string, code: string): Promise<string> {
    const holder = (await this.claims.load(lobbyCodeStream(projectId, code))).state.holder;
    if (!holder) throw notFound('lobby with this invite code');
    const { state } = await this.load(holder);
    if (!isLive(state) || state.code !== code) throw notFound('lobby with this invite code');
    return holder;
  }
}
