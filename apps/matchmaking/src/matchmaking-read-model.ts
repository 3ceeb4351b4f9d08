// The matchmaking service's read side (ServiceReadModel): the queue tables its projection keeps.
import { Injectable } from '@nestjs/common';
import { LobbyEvent } from '@spawnpoint/domain';
import { ServiceReadModel } from '@spawnpoint/platform';

@Injectable()
export class MatchmakingReadModel extends ServiceReadModel<LobbyEvent> {}
