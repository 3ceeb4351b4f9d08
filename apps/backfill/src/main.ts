// Distributed mode: the backfill service alone, over NATS.
import 'reflect-metadata';
import { bootService } from '@spawnpoint/platform';
import { BackfillModule } from './backfill.module';

void bootService('backfill', BackfillModule);
