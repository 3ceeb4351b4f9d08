// Distributed mode: the lobbies service alone, over NATS.
import 'reflect-metadata';
import { bootService } from '@spawnpoint/platform';
import { LobbiesModule } from './lobbies.module';

void bootService('lobbies', LobbiesModule);
