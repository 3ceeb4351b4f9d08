// The builds service's read side and read-your-writes write path (ServiceReadModel); BuildsHost attaches its projection.
import { Injectable } from '@nestjs/common';
import { BuildEvent } from '@spawnpoint/domain';
import { ServiceReadModel } from '@spawnpoint/platform';

@Injectable()
export class BuildsReadModel extends ServiceReadModel<BuildEvent> {}
