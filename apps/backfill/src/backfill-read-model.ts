// The backfill service's read side (ServiceReadModel): it keeps no read model yet (a match is read from its stream).
import { Injectable } from '@nestjs/common';
import { BackfillEvent } from '@spawnpoint/domain';
import { ServiceReadModel } from '@spawnpoint/platform';

@Injectable()
export class BackfillReadModel extends ServiceReadModel<BackfillEvent> {}
