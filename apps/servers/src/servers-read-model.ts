// The servers service's read side and read-your-writes write path (ServiceReadModel): providers wait and
// listen through it, handlers write through it; ServersHost attaches its projections when it starts.
import { Injectable } from '@nestjs/common';
import { ServerEvent } from '@spawnpoint/domain';
import { ServiceReadModel } from '@spawnpoint/platform';

@Injectable()
export class ServersReadModel extends ServiceReadModel<ServerEvent> {}
