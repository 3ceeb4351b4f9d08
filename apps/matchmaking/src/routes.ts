// Which bus subject becomes which command or query of the matchmaking service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { SetBackfillAccepting, SetBackfillAcceptingHandler } from './commands/set-backfill-accepting.handler';
import { ExplainMatchmaking, ExplainMatchmakingHandler } from './queries/explain.handler';

export const matchmakingRoutes = () => [route(SUBJECTS.matchmaking.explain, ExplainMatchmaking), route(SUBJECTS.matchmaking.setBackfillAccepting, SetBackfillAccepting)];

export const MATCHMAKING_HANDLERS = [ExplainMatchmakingHandler, SetBackfillAcceptingHandler];
