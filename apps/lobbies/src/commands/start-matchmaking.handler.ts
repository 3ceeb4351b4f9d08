import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { invalid, LobbyView } from '@spawnpoint/domain';
import { BusCommand, LobbyConfigs } from '@spawnpoint/platform';
import { StartMatchmakingRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { lobbyView } from '../lobby-views';
import { LobbyWrites } from '../lobby-writes';

export class StartMatchmaking extends BusCommand<StartMatchmakingRequest, LobbyView> {}

/** The host queues the lobby in a mode of its configuration (decisions.md "Matchmaking"). */
@Injectable()
@CommandHandler(StartMatchmaking)
export class StartMatchmakingHandler implements ICommandHandler<StartMatchmaking> {
  constructor(private readonly configs: LobbyConfigs, private readonly states: LobbyStates, private readonly writes: LobbyWrites) {}

  async execute({ request: r }: StartMatchmaking): Promise<LobbyView> {
    const config = await this.configs.get(r.projectId, r.config);
    const { lobbyId } = await this.states.mine(r, false);
    const mode = config.modes[r.mode];
    if (!mode) {
      const known = Object.keys(config.modes);
      throw invalid(`lobby configuration ${config.name} has no matchmaking mode ${r.mode}${known.length ? ` (modes: ${known.join(', ')})` : ' (it has no matchmaking modes)'}`, ['body', 'mode']);
    }
    const ran = await this.writes.run(r.projectId, lobbyId, {
      type: 'StartMatchmaking', playerId: r.playerId, mode: mode.name, maxPartySize: mode.maxPartySize, timeoutMs: mode.timeout * 1000, now: this.writes.now(),
    });
    return lobbyView(ran.state);
  }
}
