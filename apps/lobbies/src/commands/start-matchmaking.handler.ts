import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainError, lobbySearchStream, LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { StartMatchmakingRequest } from '@spawnpoint/proto';
import { LobbyClaims } from '../lobby-claims';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class StartMatchmaking extends BusCommand<StartMatchmakingRequest, LobbyView> {}

/** The host queues the lobby in a mode of its configuration (decisions.md "Matchmaking"); a member searching elsewhere in the project: 409. */
@Injectable()
@CommandHandler(StartMatchmaking)
export class StartMatchmakingHandler implements ICommandHandler<StartMatchmaking> {
  constructor(private readonly configs: LobbyConfigs, private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate, private readonly claims: LobbyClaims) {}

  async execute({ request: r }: StartMatchmaking): Promise<LobbyView> {
    const config = await this.configs.get(r.projectId, r.config);
    const { lobbyId, state } = await this.states.mine(r, false);
    const mode = config.modes[r.mode];
    if (!mode) {
      const known = Object.keys(config.modes);
      // 400, as the hosted service answers (decisions.md "Matchmaking"); the message names the mode.
      throw new DomainError('bad_request', `unknown matchmaking mode '${r.mode}': lobby configuration ${config.name} ${known.length ? `has the modes ${known.join(', ')}` : 'has no matchmaking modes'}`);
    }
    // One active search per player per project (decisions.md): every member's search claimed first. With
    // one config of the project that matches, one lobby per player per config already holds it.
    const searchable = await this.configs.withModes(r.projectId);
    const members = searchable.some((c) => c !== config.name) ? state.players.map((p) => p.id).sort() : [];
    const claimed: string[] = [];
    try {
      for (const p of members) if (await this.claims.search(r.projectId, p, lobbyId)) claimed.push(p);
      const ran = await this.lobbies.handle(lobbyId, {
        type: 'StartMatchmaking', playerId: r.playerId, mode: mode.name, maxPartySize: mode.maxPartySize, timeoutMs: mode.timeout * 1000, now: this.lobbies.now(),
      }, { projectId: r.projectId });
      // A start racing this one in another lobby took a member's claim over: this one gives way.
      for (const p of members) {
        if (await this.claims.searching(r.projectId, p, lobbyId)) continue;
        await this.lobbies.handle(lobbyId, { type: 'CancelMatchmaking', playerId: r.playerId, now: this.lobbies.now() }, { projectId: r.projectId }).catch(() => undefined);
        throw new DomainError('conflict', `player ${p} is already searching for a match in another lobby`);
      }
      return viewAfter(ran);
    } catch (err) {
      // Not searching after all: the claims taken here are let go (a lost release is healed by the next claim).
      await Promise.all(claimed.map((p) => this.claims.release(lobbySearchStream(r.projectId, p), lobbyId)));
      throw err;
    }
  }
}
