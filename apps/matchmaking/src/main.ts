// Distributed mode: the matchmaking service alone, over NATS.
import 'reflect-metadata';
import { bootService } from '@spawnpoint/platform';
import { MatchmakingModule } from './matchmaking.module';

void bootService('matchmaking', MatchmakingModule);
