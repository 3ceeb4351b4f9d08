// The game API (ADR-0016, docs/game-server-api.md): what a game machine asks with its SPAWNPOINT_SERVER_TOKEN.
// The gateway sends the token's server id and hash; the servers service answers only while the hash is
// the server's current one and the server is not stopped.
import { SUBJECTS } from './subjects';
import { BusRequest } from './contracts';
import { Bool, Enum, Int, Json, Nested, Str } from './validation/fields';
import { BackfillState } from './backfill';
import { ServerView } from './servers';

const S = SUBJECTS.servers;
export const GAME_HEALTH = ['healthy', 'degraded', 'unhealthy'] as const;

export class GameStatusBody {
  @Int({ min: 0, max: 100_000, optional: true }) players?: number;
  @Enum(GAME_HEALTH, { optional: true }) health?: 'healthy' | 'degraded' | 'unhealthy';
  @Str({ max: 512, optional: true, nullable: true }) message?: string | null;
  /**
   * The game resets itself when its claim is released (it reads its own server and sees pool_claimed_at null):
   * a claim lease that expires then returns the server to the pool instead of stopping it. Kept until said otherwise (a new machine: until said again).
   */
  @Bool({ optional: true }) resettable?: boolean;
}

/** GET /v3/game/match: the server's match id, and its backfill state when the match has a backfill record. */
export class GameMatchView {
  @Str() match_id!: string;
  @Nested(() => BackfillState, { nullable: true }) backfill!: BackfillState | null;
}

@BusRequest(S.gameSelf)
export class GameSelfRequest {
  @Str() serverId!: string;
  @Str() tokenHash!: string;
}
@BusRequest(S.gameReady)
export class GameReadyRequest extends GameSelfRequest {}
@BusRequest(S.gameStatus)
export class GameStatusRequest extends GameSelfRequest { @Json() body!: GameStatusBody }
@BusRequest(S.gameStop)
export class GameStopRequest extends GameSelfRequest {}

/** A game request's bus answer: the server and its project (the gateway asks other services with it). */
export class GameServerReply {
  @Str() projectId!: string;
  @Nested(() => ServerView) server!: ServerView;
}
