// Distributed mode: the builds service alone, over NATS. Uploads and unpacked builds travel as blobs in
// PostgreSQL (ADR-0013); SPAWNPOINT_DATA_DIR is its own disk (staging and a cache of unpacked builds).
import 'reflect-metadata';
import { bootService } from '@spawnpoint/platform';
import { BuildsModule } from './builds.module';

void bootService('builds', BuildsModule);
