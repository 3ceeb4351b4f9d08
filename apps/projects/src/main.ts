// Distributed mode: the projects service, and (for now, in the same process) the lobbies service, over NATS.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { bootService } from '@spawnpoint/platform';
import { LobbiesModule } from './lobbies';
import { ProjectsModule } from './projects.module';

@Module({ imports: [ProjectsModule, LobbiesModule] })
class ProjectsAndLobbiesModule {}

void bootService('projects', ProjectsAndLobbiesModule);
