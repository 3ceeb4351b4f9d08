// Which bus subject becomes which command or query of the backfill service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { OverrideBackfill, OverrideBackfillHandler } from './commands/override-backfill.handler';
import { GetBackfill, GetBackfillHandler } from './queries/get-backfill.handler';

export const backfillRoutes = () => [route(SUBJECTS.backfill.get, GetBackfill), route(SUBJECTS.backfill.override, OverrideBackfill)];

export const BACKFILL_HANDLERS = [GetBackfillHandler, OverrideBackfillHandler];
