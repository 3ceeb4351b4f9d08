import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { LobbyView, lobbyStream } from '@spawnpoint/domain';
import { BusQuery, PLATFORM, Platform } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { BrowseLobbiesRequest, LobbyPage } from '@spawnpoint/proto';
import { browseLobbies } from '../lobby-queries';
import { LobbyReadModel } from '../lobby-read-model';

export class BrowseLobbies extends BusQuery<BrowseLobbiesRequest, LobbyPage<LobbyView>> {}

/** Lobbies of a config, newest first, from the read model (public ones unless asked otherwise). */
@Injectable()
@QueryHandler(BrowseLobbies)
export class BrowseLobbiesHandler implements IQueryHandler<BrowseLobbies> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly configs: LobbyConfigs, private readonly readModel: LobbyReadModel) {}

  async execute({ request: r }: BrowseLobbies): Promise<LobbyPage<LobbyView>> {
    const config = await this.configs.get(r.projectId, r.config);
    // Read-your-writes for lists: every lobby event committed before the browse is in the read model
    // (settling only what this process had been delivered missed a create whose event was still on its way).
    await this.readModel.waitForHead(lobbyStream(''));
    return browseLobbies(this.platform.db, { ...r, config: config.name });
  }
}
