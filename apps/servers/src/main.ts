// Distributed mode: the servers service alone, over NATS, with the process runtime on this machine.
import 'reflect-metadata';
import { bootService } from '@spawnpoint/platform';
import { ServersModule } from './servers.module';

void bootService('servers', ServersModule);
