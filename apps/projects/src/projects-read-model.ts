// The projects service's read side and read-your-writes write path (ServiceReadModel); ProjectsHost attaches its projection.
import { Injectable } from '@nestjs/common';
import { ProjectEvent } from '@spawnpoint/domain';
import { ServiceReadModel } from '@spawnpoint/platform';

@Injectable()
export class ProjectsReadModel extends ServiceReadModel<ProjectEvent> {}
