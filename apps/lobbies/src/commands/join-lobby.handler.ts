import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainError, invalid, lobbyMemberStream, LobbyView, notFound } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { JoinLobbyRequest } from '@spawnpoint/proto';
import { checkState } from '../limits';
import { LobbyClaims } from '../lobby-claims';
import { isLive, LobbyStates } from '../lobby-states';
import { lobbyView, viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';
import { Presence } from '../presence';

export class JoinLobby extends BusCommand<JoinLobbyRequest, LobbyView> {}

/** The caller joins a lobby by id or invite code; one lobby per player per config. */
@Injectable()
@CommandHandler(JoinLobby)
export class JoinLobbyHandler implements ICommandHandler<JoinLobby> {
  constructor(
    private readonly configs: LobbyConfigs, private readonly states: LobbyStates,
    private readonly claims: LobbyClaims, private readonly lobbies: LobbyAggregate, @Inject(Presence) private readonly presence: Presence,
  ) {}

  async execute({ request: r, context }: JoinLobby): Promise<LobbyView> {
    if ((r.lobbyId === undefined) === (r.code === undefined)) throw invalid('give exactly one of lobbyId and code', ['body', r.lobbyId === undefined ? 'lobbyId' : 'code']);
    const config = await this.configs.get(r.projectId, r.config);
    checkState(r.state);
    const lobbyId = r.lobbyId ?? (await this.states.withCode(r.projectId, r.code!));
    const { state } = await this.states.peekOrLoad(lobbyId);
    if (!isLive(state) || state.projectId !== r.projectId || state.config !== config.name) throw notFound('lobby');
    const claimedNow = await this.claims.membership(r.projectId, config.name, r.playerId, lobbyId);
    try {
      const ran = await this.lobbies.handle(lobbyId, { type: 'JoinLobby', playerId: r.playerId, state: r.state ?? {}, now: this.lobbies.now() }, { projectId: r.projectId });
      this.presence.touch(r.projectId, lobbyId, r.playerId);
      return viewAfter(ran);
    } catch (err) {
      if (claimedNow) await this.claims.release(lobbyMemberStream(r.projectId, config.name, r.playerId), lobbyId);
      const first = await this.joinedBefore(err, lobbyId, context.commandId);
      if (first) return first;
      throw err;
    }
  }

  /** A join sent again (same command id) after its answer was lost, even across a restart: the lobby, not a 409. */
  private async joinedBefore(err: unknown, lobbyId: string, commandId: string | null): Promise<LobbyView | null> {
    if (!commandId || !(err instanceof DomainError && err.code === 'conflict')) return null;
    const { applied, loaded } = await this.lobbies.applied(lobbyId, commandId);
    if (!applied) return null;
    return isLive(loaded.state) ? lobbyView(loaded.state) : null;
  }
}
