// The lobbies service's read side and read-your-writes write path (ServiceReadModel), for the use cases
// that read the read model (browse, the server-event consumer); LobbiesHost attaches its projection.
import { Injectable } from '@nestjs/common';
import { LobbyEvent } from '@spawnpoint/domain';
import { ServiceReadModel } from '@spawnpoint/platform';

@Injectable()
export class LobbyReadModel extends ServiceReadModel<LobbyEvent> {}
