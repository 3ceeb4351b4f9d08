// Lobbies (v3): player routes (x-player-id, client or server key, x-player-token when the project
// verifies players) and the server-key admin routes. Player routes share the per-player rate limit.
// The matchmaking routes of a lobby are in lobby-matchmaking.controller.ts.
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Patch, Post, Query, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { DeletedLobby as DeletedLobbyReply, LeftLobby as LeftLobbyReply, SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse, validationError } from '../http/validation';
import { LobbyStreams } from '../lobby-streams';
import { Doc } from '../openapi/doc';
import { PlayerIdentity, PLAYER_TOKEN_HEADER } from '../players';
import {
  BrowseLobbiesQuery, CreateLobbyBody, DeletedLobby, ErrorBody, JoinLobbyBody, LeftLobby, Lobby, LobbyConfigParams, LobbyEventsQuery, LobbyEventStream,
  LobbyIdParams, LobbyPage, LobbyPlayerParams, LobbySettingsBody, PlayerStateBody, TargetPlayerBody,
} from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';
import { errors, hostErrors, lobbyPlayer, LobbyPlayer, lobbyReply, playerHeaders } from './lobby-player';

const tooLarge = { 413: { description: 'Player state over 16 KiB or settings over 64 KiB', schema: ErrorBody } };
const adminErrors = {
  401: errors[401],
  403: { description: 'Client key', schema: ErrorBody },
  404: { description: 'No such lobby in this project and configuration', schema: ErrorBody },
  422: errors[422],
};

@Controller('api/v3/lobbies')
@UseGuards(AccessGuard, InputLimitsGuard)
export class LobbiesController {
  constructor(@Inject(BUS) private readonly bus: Bus, private readonly identity: PlayerIdentity, private readonly streams: LobbyStreams) {}

  private player(req: AuthedRequest, headers: unknown, params: unknown): Promise<LobbyPlayer> {
    return lobbyPlayer(this.identity, req, headers, params);
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config')
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Create a lobby; the caller is its host', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders, body: CreateLobbyBody,
    responses: { 201: { description: 'Lobby', schema: Lobby }, 409: { description: 'Already in a lobby of this configuration', schema: ErrorBody }, ...tooLarge, ...errors } })
  async create(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = await this.player(req, headers, params);
    const b = parse(CreateLobbyBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.lobbies.create, { ...who, body: b });
  }

  @Get(':config')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Browse public lobbies of a configuration (newest first; limit/offset pages; x-player-id not needed)', tags: ['lobbies'], auth: 'client',
    params: LobbyConfigParams, query: BrowseLobbiesQuery, responses: { 200: { description: 'A page of lobbies', schema: LobbyPage }, ...errors } })
  async browse(@Req() req: AuthedRequest, @Param() params: unknown, @Query() query: unknown) {
    // decisions.md "Lobbies (v3)": x-player-id is optional here (a menu lists lobbies before a player is known).
    const { config } = parse(LobbyConfigParams, params, 'path');
    const q = parse(BrowseLobbiesQuery, query, 'query');
    const { lobbies, total, limit, offset, hasMore } = await this.bus.request(SUBJECTS.lobbies.browse, { projectId: req.principal!.projectId, config, ...q });
    return { lobbies, total, limit, offset, hasMore };
  }

  @Get(':config/me')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: "The caller's lobby of this configuration", tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders,
    responses: { ...lobbyReply, ...errors } })
  async getMine(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.lobbies.getMine, await this.player(req, headers, params));
  }

  @Get(':config/me/events')
  // decisions.md: SSE draws on no bucket (a reconnecting client must not be locked out of its events).
  @Access({ auth: 'client', queryKey: true })
  @Doc({ summary: "Live events of the caller's lobby (server-sent events)", tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, query: LobbyEventsQuery,
    headers: { ...playerHeaders, 'last-event-id': { required: false, description: 'Resume: events after this id are replayed first' } },
    responses: { 200: { description: 'The event stream', schema: LobbyEventStream, contentType: 'text/event-stream' }, ...errors,
      429: { description: 'The API key holds as many open event streams as it may (SPAWNPOINT_MAX_STREAMS_PER_KEY)', schema: ErrorBody } } })
  async events(@Req() req: AuthedRequest, @Headers() headers: Record<string, unknown>, @Param() params: unknown, @Query() query: unknown, @Res() reply: FastifyReply) {
    const q = parse(LobbyEventsQuery, query, 'query');
    // A browser EventSource cannot set headers: the query parameters stand in for them.
    const merged = {
      ...headers,
      ...(headers['x-player-id'] === undefined && q.player_id !== undefined ? { 'x-player-id': q.player_id } : {}),
      ...(headers[PLAYER_TOKEN_HEADER] === undefined && q.player_token !== undefined ? { [PLAYER_TOKEN_HEADER]: q.player_token } : {}),
    };
    // The key's cap on open streams (429), reserved before any work is spent on this one.
    const slot = this.streams.quota.reserve(req.principal!);
    try {
      const who = await this.player(req, merged, params);
      const lastEventId = typeof headers['last-event-id'] === 'string' ? headers['last-event-id'] : q.last_event_id;
      const opened = await this.bus.request(SUBJECTS.lobbies.openStream, { ...who, lastEventId });
      reply.hijack();
      this.streams.open(reply.raw, who, opened);
      slot.holdUntilClosed(reply.raw);
    } catch (err) {
      slot.release();
      throw err;
    }
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/join')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Join a lobby by id or by invite code (exactly one of them)', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders, body: JoinLobbyBody,
    responses: {
      ...lobbyReply, 400: { description: 'Lobby full or not accepting players', schema: ErrorBody },
      409: { description: 'Already in a lobby of this configuration', schema: ErrorBody }, ...tooLarge, ...errors,
    } })
  async join(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = await this.player(req, headers, params);
    const b = parse(JoinLobbyBody, body ?? {}, 'body');
    if ((b.lobbyId === undefined) === (b.code === undefined)) {
      throw validationError([{ loc: ['body'], msg: 'Give exactly one of lobbyId and code', type: 'value_error' }]);
    }
    return this.bus.request(SUBJECTS.lobbies.join, { ...who, ...b });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Patch(':config/me')
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: "Merge into the caller's player state", tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders, body: PlayerStateBody,
    responses: { ...lobbyReply, ...tooLarge, ...errors } })
  async updateMyState(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = await this.player(req, headers, params);
    const { state } = parse(PlayerStateBody, body, 'body');
    return this.bus.request(SUBJECTS.lobbies.updateMyState, { ...who, state });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':config/me')
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: "Leave the caller's lobby (host leave and last-player rules apply)", tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders,
    responses: { 200: { description: 'Left', schema: LeftLobby }, ...errors } })
  async leave(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown): Promise<LeftLobbyReply> {
    return this.bus.request(SUBJECTS.lobbies.leave, await this.player(req, headers, params));
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Patch(':config/me/settings')
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Change the lobby settings (host)', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders, body: LobbySettingsBody,
    responses: { ...lobbyReply, ...tooLarge, ...hostErrors } })
  async updateSettings(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = await this.player(req, headers, params);
    const changes = parse(LobbySettingsBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.lobbies.updateSettings, { ...who, changes });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/me/kick')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Kick a player (host), the player in the body: the same as DELETE me/players/{playerId}', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams,
    headers: playerHeaders, body: TargetPlayerBody, responses: { ...lobbyReply, ...hostErrors } })
  async kick(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = await this.player(req, headers, params);
    const { playerId } = parse(TargetPlayerBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.lobbies.kick, { ...who, targetId: playerId });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':config/me/players/:playerId')
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Kick a player (host): the Lobby without them; their event stream gets lobby_updated and ends', tags: ['lobbies'], auth: 'client',
    params: LobbyPlayerParams, headers: playerHeaders,
    responses: { ...lobbyReply, ...hostErrors, 404: { description: 'Unknown configuration, the caller is in no lobby of it, or the player is not in the lobby', schema: ErrorBody } } })
  async kickPlayer(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    const { config, playerId } = parse(LobbyPlayerParams, params, 'path');
    const who = await this.player(req, headers, { config });
    return this.bus.request(SUBJECTS.lobbies.kick, { ...who, targetId: playerId });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/me/transfer-host')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Hand the host role to another member (host)', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders, body: TargetPlayerBody,
    responses: { ...lobbyReply, ...hostErrors } })
  async transferHost(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = await this.player(req, headers, params);
    const { playerId } = parse(TargetPlayerBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.lobbies.transferHost, { ...who, targetId: playerId });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/me/start')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Start a game server for the lobby (host): starting now, in_game when the server runs', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams,
    headers: playerHeaders, responses: { ...lobbyReply, 409: { description: 'The lobby is not waiting', schema: ErrorBody }, ...hostErrors } })
  async start(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.lobbies.start, await this.player(req, headers, params));
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/me/heartbeat')
  @HttpCode(204)
  @Access({ auth: 'client', bucket: 'player', keyBucket: false })
  @Doc({ summary: 'Tell the lobby the caller is still there (an open event stream does the same)', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams,
    headers: playerHeaders, responses: { 204: { description: 'Seen' }, ...errors } })
  async heartbeat(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown): Promise<void> {
    await this.bus.request(SUBJECTS.lobbies.heartbeat, await this.player(req, headers, params));
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/me/end-match')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'End the match (host): the server is stopped, the lobby is waiting again with its players, settings and state', tags: ['lobbies'], auth: 'client',
    params: LobbyConfigParams, headers: playerHeaders, responses: { ...lobbyReply, 409: { description: 'The lobby is not in_game', schema: ErrorBody }, ...hostErrors } })
  async endMatch(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.lobbies.endMatch, await this.player(req, headers, params));
  }

  @Get(':config/:id')
  @Access({ auth: 'server', bucket: 'read' })
  @Doc({ summary: 'Get any lobby of the project (server key)', tags: ['lobbies'], auth: 'server', params: LobbyIdParams,
    responses: { ...lobbyReply, ...adminErrors } })
  adminGet(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { config, id } = parse(LobbyIdParams, params, 'path');
    return this.bus.request(SUBJECTS.lobbies.adminGet, { projectId: req.principal!.projectId, config, lobbyId: id });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':config/:id')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Delete a lobby (server key); its players get lobby_deleted', tags: ['lobbies'], auth: 'server', params: LobbyIdParams,
    responses: { 200: { description: 'Deleted', schema: DeletedLobby }, ...adminErrors } })
  adminDelete(@Req() req: AuthedRequest, @Param() params: unknown): Promise<DeletedLobbyReply> {
    const { config, id } = parse(LobbyIdParams, params, 'path');
    return this.bus.request(SUBJECTS.lobbies.adminDelete, { projectId: req.principal!.projectId, config, lobbyId: id });
  }
}
