// Which bus subject becomes which query of the matchmaking service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { ExplainMatchmaking, ExplainMatchmakingHandler } from './queries/explain.handler';

export const matchmakingRoutes = () => [route(SUBJECTS.matchmaking.explain, ExplainMatchmaking)];

export const MATCHMAKING_HANDLERS = [ExplainMatchmakingHandler];
