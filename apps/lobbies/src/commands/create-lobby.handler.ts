import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { DomainError, lobbyCodeStream, lobbyMemberStream, LobbyView } from '@spawnpoint/domain';
import { BusCommand, idFromCommand } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { CreateLobbyRequest } from '@spawnpoint/proto';
import { checkSettings, checkState } from '../limits';
import { LobbyClaims } from '../lobby-claims';
import { isLive, LobbyStates } from '../lobby-states';
import { lobbyView, viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';
import { Presence } from '../presence';

export class CreateLobby extends BusCommand<CreateLobbyRequest, LobbyView> {}

/** A new lobby with the caller as its host and a fresh invite code, public or private (none when the config's codes are off). */
@Injectable()
@CommandHandler(CreateLobby)
export class CreateLobbyHandler implements ICommandHandler<CreateLobby> {
  constructor(
    private readonly configs: LobbyConfigs, private readonly states: LobbyStates, private readonly claims: LobbyClaims,
    private readonly lobbies: LobbyAggregate, @Inject(Presence) private readonly presence: Presence,
  ) {}

  async execute({ request: r, context }: CreateLobby): Promise<LobbyView> {
    const config = await this.configs.get(r.projectId, r.config);
    const b = r.body;
    checkState(b.state);
    checkSettings(b.settings);
    // Created by a command with an id: the lobby's id is derived from it, so a create sent again after its
    // answer was lost (even across a restart) answers the lobby it created.
    const { commandId } = context;
    const lobbyId = commandId ? idFromCommand('lobby', r.projectId, commandId) : randomUUID();
    if (commandId) {
      const { state } = await this.states.load(lobbyId);
      if (isLive(state) && state.players.some((p) => p.id === r.playerId)) return lobbyView(state);
      if (state.status !== 'none') throw new DomainError('conflict', 'the lobby this request created is closed or was left');
    }
    const isPrivate = b.isPrivate ?? false;
    await this.claims.membership(r.projectId, config.name, r.playerId, lobbyId);
    let code: string | null = null;
    try {
      if (config.inviteCodeConfig) code = await this.claims.freeCode(r.projectId, config.inviteCodeConfig, lobbyId);
      const ran = await this.lobbies.handle(lobbyId, {
        type: 'CreateLobby', lobbyId, projectId: r.projectId, config: config.name, hostId: r.playerId, name: b.name ?? null,
        maxPlayers: b.maxPlayers ?? config.maxPlayers, region: b.region ?? 'us-east', isPrivate, allowLateJoin: b.allowLateJoin ?? false,
        settings: b.settings ?? {}, hostState: b.state ?? {}, code, now: this.lobbies.now(),
      }, { projectId: r.projectId });
      this.presence.touch(r.projectId, lobbyId, r.playerId);
      return viewAfter(ran);
    } catch (err) {
      await this.claims.release(lobbyMemberStream(r.projectId, config.name, r.playerId), lobbyId);
      if (code) await this.claims.release(lobbyCodeStream(r.projectId, code), lobbyId);
      throw err;
    }
  }
}
