// Distributed mode: the projects service alone, over NATS.
import 'reflect-metadata';
import { bootService } from '@spawnpoint/platform';
import { ProjectsModule } from './projects.module';

void bootService('projects', ProjectsModule);
