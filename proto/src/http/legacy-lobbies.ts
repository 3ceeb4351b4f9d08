// Requests of the legacy lobby API (validated like every other route: 422 with loc/msg/type details; unknown
// body fields are ignored there, as the hosted service ignores them and its official Unity SDK sends some).
import { Bool, Enum, Flag, Int, Json, Nested, Str, UuidField } from '../validation/fields';
import { PlayerIdField, RegionField } from './fields';

const ConfigName = () => Str({ min: 1, max: 128, description: 'Lobby configuration name (or id)' });

/** `public=true` (the published name) or `publicOnly=true` (the name we accepted first): public lobbies only. */
export class LegacyListQuery { @ConfigName() name!: string; @Flag({ optional: true }) public?: boolean; @Flag({ optional: true }) publicOnly?: boolean }
export class LegacyConfigQuery { @ConfigName() name!: string }
export class LegacyKickQuery { @ConfigName() name!: string; @PlayerIdField() requesterId!: string; @Flag({ optional: true }) isKick?: boolean }
/** The event stream's query (the Unity SDK's names); `api_key` and `client-auth-token` stand in for the headers of an EventSource. */
export class LegacyEventsQuery {
  @PlayerIdField() 'player-id'!: string;
  @ConfigName() 'lobby-config'!: string;
  @Str({ optional: true, max: 200 }) api_key?: string;
  @Str({ optional: true, max: 8192 }) 'client-auth-token'?: string;
}

export class LegacyLobbyParams { @UuidField() id!: string }
/** GET /lobbies/{id}: a lobby id or a player id (that player's lobby). */
export class LegacyLobbyOrPlayerParams { @PlayerIdField() id!: string }
export class LegacyCodeParams { @Str({ min: 1, max: 64 }) code!: string }
export class LegacyPlayerParams { @UuidField() id!: string; @PlayerIdField() playerId!: string }

/** The lobby's own fields (LobbySettings without its custom `settings`). */
export class LegacyLobbyFields {
  @Str({ max: 255, optional: true, nullable: true }) name?: string | null;
  @Int({ min: 1, max: 100, optional: true }) maxPlayers?: number;
  @Bool({ optional: true }) isPrivate?: boolean;
  @Bool({ optional: true }) useInviteCode?: boolean;
  @Bool({ optional: true }) allowLateJoin?: boolean;
  @RegionField({ optional: true }) region?: string;
}
/** LobbySettings: the lobby's fields and its custom `settings`. */
export class LegacySettings extends LegacyLobbyFields { @Json({ optional: true }) settings?: Record<string, unknown> }
export class LegacyCreateBody extends LegacySettings { @PlayerIdField() host!: string }
/** PUT's `matchmaking`: the host starts (with a mode) or cancels the lobby's search. */
export class LegacyMatchmakingAction {
  @Enum(['start', 'cancel']) action!: 'start' | 'cancel';
  @Str({ min: 1, max: 64, optional: true }) mode?: string;
}
/**
 * PUT /lobbies/{id}: the published fields (requesterId, host, status, settings as LobbySettings, playerState)
 * and what the Unity SDK sends beside them: the settings fields at the top level, `targetPlayerId` (whose
 * state `playerState` is) and `matchmaking`.
 */
export class LegacyUpdateBody extends LegacyLobbyFields {
  @PlayerIdField() requesterId!: string;
  @PlayerIdField({ optional: true }) host?: string;
  @Enum(['waiting', 'in_game', 'finished'], { optional: true }) status?: 'waiting' | 'in_game' | 'finished';
  @Nested(() => LegacySettings, { optional: true }) settings?: LegacySettings;
  @Json({ optional: true }) playerState?: Record<string, unknown>;
  @PlayerIdField({ optional: true }) targetPlayerId?: string;
  @Nested(() => LegacyMatchmakingAction, { optional: true }) matchmaking?: LegacyMatchmakingAction;
}
export class LegacyJoinBody { @PlayerIdField() playerId!: string; @Json({ optional: true }) metadata?: Record<string, unknown> }
/** DELETE /lobbies/{id} (the server key may send no body: an admin delete) and POST /lobbies/{id}/heartbeat: the player acting. */
export class LegacyPlayerBody { @PlayerIdField() playerId!: string }
