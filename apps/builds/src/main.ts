// Distributed mode: the builds service alone, over NATS. It shares SPAWNPOINT_DATA_DIR with the
// gateway (uploads land there) and the servers service (artifacts are read from there).
import 'reflect-metadata';
import { bootService } from '@spawnpoint/platform';
import { BuildsModule } from './builds.module';

void bootService('builds', BuildsModule);
