// Lobbies (v3): HTTP inputs, the requests the gateway sends the lobbies service, the Lobby reply (v3
// Lobby JSON) and the broadcasts. The legacy API's inputs are in http/legacy-lobbies.ts.
import { SUBJECTS } from './subjects';
import { BusEvent, BusRequest } from './contracts';
import { AnyValue, Bool, Enum, Int, Json, List, NestedArray, Str, UuidField } from './validation/fields';
import { LobbyStatusField, PLAYER_ID_MSG, PLAYER_ID_PATTERN, PlayerIdField, RegionField } from './http/fields';
import type { LobbyCommand } from '@spawnpoint/domain';

const L = SUBJECTS.lobbies;

export class PlayerIdHeader { @Str({ pattern: PLAYER_ID_PATTERN, msg: PLAYER_ID_MSG }) 'x-player-id'!: string }
export class LobbyConfigParams { @Str({ min: 1, max: 128 }) config!: string }
/** DELETE /v3/lobbies/{config}/me/players/{playerId}: the member the host kicks. */
export class LobbyPlayerParams { @Str({ min: 1, max: 128 }) config!: string; @PlayerIdField() playerId!: string }
export class LobbyIdParams { @Str({ min: 1, max: 128 }) config!: string; @UuidField() id!: string }

export class CreateLobbyBody {
  @Str({ max: 128, optional: true, nullable: true }) name?: string | null;
  @Int({ min: 1, max: 100, optional: true }) maxPlayers?: number;
  @RegionField({ optional: true }) region?: string;
  @Bool({ optional: true }) isPrivate?: boolean;
  @Bool({ optional: true }) allowLateJoin?: boolean;
  @Json({ optional: true }) settings?: Record<string, unknown>;
  @Json({ optional: true }) state?: Record<string, unknown>;
}
export class JoinLobbyBody {
  @UuidField({ optional: true }) lobbyId?: string;
  @Str({ min: 1, max: 64, optional: true }) code?: string;
  @Json({ optional: true }) state?: Record<string, unknown>;
}
export class PlayerStateBody { @Json() state!: Record<string, unknown> }
/** The host's changes; the invite code of a lobby turning private is the service's to generate. */
export class LobbySettingsBody {
  @Str({ max: 128, optional: true, nullable: true }) name?: string | null;
  @Int({ min: 1, max: 100, optional: true }) maxPlayers?: number;
  @Bool({ optional: true }) isPrivate?: boolean;
  @Bool({ optional: true }) allowLateJoin?: boolean;
  @RegionField({ optional: true }) region?: string;
  @Json({ optional: true }) settings?: Record<string, unknown>;
}
export class TargetPlayerBody { @PlayerIdField() playerId!: string }
export class BrowseLobbiesQuery {
  @RegionField({ optional: true }) region?: string;
  @LobbyStatusField({ optional: true }) status?: string;
  @Int({ min: 1, max: 100, optional: true, coerce: true, description: 'Lobbies per page, default 50' }) limit?: number;
  @Int({ min: 0, max: 1_000_000, optional: true, coerce: true, description: 'Lobbies to skip (newest first), default 0' }) offset?: number;
}
/** A browser's EventSource cannot send headers: the event stream also takes them as query parameters. */
export class LobbyEventsQuery {
  @Str({ max: 200, optional: true }) api_key?: string;
  @Str({ pattern: PLAYER_ID_PATTERN, msg: PLAYER_ID_MSG, optional: true }) player_id?: string;
  @Str({ max: 8192, optional: true }) player_token?: string;
  @Str({ max: 128, optional: true }) last_event_id?: string;
}
/** The project-wide lobby stream (server key): only the key may come as a query parameter. */
export class ProjectLobbyEventsQuery { @Str({ max: 200, optional: true }) api_key?: string }

export class LobbyPlayerView { @Str() id!: string; @Json() state!: Record<string, unknown>; @Bool() isHost!: boolean }
export class LobbyView {
  @Str() id!: string;
  @Str({ nullable: true }) code!: string | null;
  @Str() config!: string;
  @Str({ nullable: true, description: 'Display name given on create or in settings; null when none' }) name!: string | null;
  @LobbyStatusField() status!: string;
  @Str() host!: string;
  @Int() maxPlayers!: number;
  @Int() currentPlayers!: number;
  @Str() region!: string;
  @Bool() isPrivate!: boolean;
  @Bool() allowLateJoin!: boolean;
  @Json() settings!: Record<string, unknown>;
  @NestedArray(() => LobbyPlayerView) players!: LobbyPlayerView[];
  @Json({ nullable: true }) server!: Record<string, unknown> | null;
  @Json({ nullable: true }) matchmaking!: Record<string, unknown> | null;
  @Str() createdAt!: string;
  @Str() updatedAt!: string;
  @Str({ optional: true, description: 'Why the last search ended without a game (timeout, declined, confirmation_timeout, a server start error)' }) matchmakingError?: string;
}

/** POST /v3/lobbies/{config}/me/matchmaking: a mode of the lobby configuration's matchmaking.modes. */
export class StartMatchmakingBody { @Str({ min: 1, max: 128 }) mode!: string }

/**
 * A player's request on one lobby configuration of a project. `lobbyId` (legacy API, which addresses
 * lobbies by id): the lobby the player must be a member of; without it, the player's lobby of the config.
 */
@BusRequest(L.getMine, L.leave, L.start, L.heartbeat, L.endMatch, L.close, L.cancelMatchmaking, L.confirmMatch, L.declineMatch)
export class PlayerLobbyRequest {
  @Str() projectId!: string;
  @Str() config!: string;
  @Str() playerId!: string;
  @Str({ optional: true }) lobbyId?: string;
}
/** The body was checked in full by the gateway (CreateLobbyBody): here as an object. */
@BusRequest(L.create)
export class CreateLobbyRequest extends PlayerLobbyRequest { @Json() body!: CreateLobbyBody }
/** Exactly one of lobbyId and code. */
@BusRequest(L.join)
export class JoinLobbyRequest extends PlayerLobbyRequest { @Str({ optional: true }) code?: string; @Json({ optional: true }) state?: Record<string, unknown> }
@BusRequest(L.startMatchmaking)
export class StartMatchmakingRequest extends PlayerLobbyRequest { @Str() mode!: string }
/**
 * A command of a match's workflow on one lobby (matchmaking → lobbies): `command` is a lobby command the
 * lobbies service checks itself (only the matchmaking ones and ServerAssigned pass); `commandId` makes a
 * repeat harmless.
 */
@BusRequest(L.matchCommand)
export class MatchLobbyCommandRequest { @Str() lobbyId!: string; @Json() command!: LobbyCommand; @Str() commandId!: string }
@BusRequest(L.updateMyState)
/** `targetId`: the host changes that member's state instead of its own (the legacy API's targetPlayerId). */
export class UpdatePlayerStateRequest extends PlayerLobbyRequest { @Json() state!: Record<string, unknown>; @Str({ optional: true }) targetId?: string }
@BusRequest(L.updateSettings)
export class UpdateLobbySettingsRequest extends PlayerLobbyRequest { @Json() changes!: LobbySettingsBody }
@BusRequest(L.kick, L.transferHost)
export class TargetPlayerRequest extends PlayerLobbyRequest { @Str() targetId!: string }
@BusRequest(L.adminGet, L.adminDelete)
export class AdminLobbyRequest { @Str() projectId!: string; @Str() config!: string; @Str() lobbyId!: string }
/** `includePrivate`: the legacy list shows private lobbies unless asked for public ones only. */
@BusRequest(L.browse)
export class BrowseLobbiesRequest {
  @Str() projectId!: string;
  @Str() config!: string;
  @Str({ optional: true }) region?: string;
  @Str({ optional: true }) status?: string;
  @Int({ optional: true }) limit?: number;
  @Int({ optional: true }) offset?: number;
  @Bool({ optional: true }) includePrivate?: boolean;
}
/** A page of lobbies, newest first: `total` matching lobbies, this page from `offset`, `hasMore` after it. */
export class LobbyPage<L = unknown> {
  @List({ type: 'object' }) lobbies!: L[];
  @Int() total!: number;
  @Int() limit!: number;
  @Int() offset!: number;
  @Bool() hasMore!: boolean;
}
/** GET /v3/lobbies/{config}: the documented page. */
export class LobbyViewPage {
  @NestedArray(() => LobbyView) lobbies!: LobbyView[];
  @Int({ description: 'Public lobbies matching the filters' }) total!: number;
  @Int() limit!: number;
  @Int() offset!: number;
  @Bool({ description: 'More lobbies after this page (offset + limit < total)' }) hasMore!: boolean;
}

export class LeftLobby { @Enum(['left']) status!: 'left'; @Str() lobbyId!: string }
export class DeletedLobby { @Enum(['lobby_deleted']) status!: 'lobby_deleted'; @Str() id!: string }

/** One server-sent event: `id` is `<lobbyId>:<revision>` of the lobby stream. */
export class LobbyStreamEvent {
  @Str() id!: string;
  @Enum(['connected', 'lobby_updated', 'lobby_deleted', 'queue_stats', 'match_found']) event!: 'connected' | 'lobby_updated' | 'lobby_deleted' | 'queue_stats' | 'match_found';
  @AnyValue() data!: unknown;
}

/** Opening an event stream: what the player missed since `lastEventId`, then the current lobby. */
@BusRequest(L.openStream)
export class OpenLobbyStreamRequest extends PlayerLobbyRequest { @Str({ optional: true }) lastEventId?: string }
export class OpenedLobbyStream {
  /** Missed events in order (empty without a usable lastEventId). */
  @NestedArray(() => LobbyStreamEvent) replay!: LobbyStreamEvent[];
  /** The player's lobby now and its revision; null when the replay ended the stream (deleted, removed). */
  @Str({ nullable: true }) lobbyId!: string | null;
  @Int() revision!: number;
  @AnyValue() lobby!: unknown | null;
}

/**
 * Broadcast on `lobbies.updates` after every change (ephemeral; a missed one is replayed from the event
 * store on reconnect). `removed`: players no longer in the lobby after this change — their streams get
 * this update and then end.
 */
@BusEvent(L.updates)
export class LobbyUpdate {
  @Str() projectId!: string;
  @Str() config!: string;
  @Str() lobbyId!: string;
  @Int() revision!: number;
  /** `match_found`: an update that is also the lobby's match_found event. */
  @Enum(['updated', 'deleted', 'match_found']) kind!: 'updated' | 'deleted' | 'match_found';
  @AnyValue() lobby!: unknown | null;
  @Str({ optional: true }) reason?: string;
  @List({ type: 'string' }, { each: (v) => typeof v === 'string', eachMsg: 'every entry must be a string' }) removed!: string[];
}

export class PresenceEntry { @Str() projectId!: string; @Str() lobbyId!: string; @Str() playerId!: string }
/** Broadcast on `lobbies.presence`: players with an open event stream (or a heartbeat) just now. */
@BusEvent(L.presence)
export class LobbyPresence { @NestedArray(() => PresenceEntry) entries!: PresenceEntry[] }
