// Lobbies (v3): player routes (x-player-id, client or server key) and the server-key admin routes.
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Patch, Post, Req, UseGuards } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { DeletedLobby as DeletedLobbyReply, LeftLobby as LeftLobbyReply, SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse, validationError } from '../http/validation';
import { Doc } from '../openapi/doc';
import {
  CreateLobbyBody, DeletedLobby, ErrorBody, JoinLobbyBody, LeftLobby, Lobby, LobbyConfigParams, LobbyIdParams, PlayerIdHeader, PlayerStateBody,
} from '../schemas';

const playerHeader = { 'x-player-id': { required: true, description: 'The player: 1-128 characters of [A-Za-z0-9_.:@-]' } };
const errors = {
  401: { description: 'Missing or unknown api-key', schema: ErrorBody },
  404: { description: 'Unknown lobby configuration, or the player is not in a lobby of it', schema: ErrorBody },
  422: { description: 'Invalid request', schema: ErrorBody },
};
const adminErrors = {
  401: errors[401],
  403: { description: 'Client key', schema: ErrorBody },
  404: { description: 'No such lobby in this project and configuration', schema: ErrorBody },
  422: errors[422],
};

@Controller('api/v3/lobbies')
@UseGuards(AccessGuard)
export class LobbiesController {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  private player(req: AuthedRequest, headers: unknown, params: unknown) {
    const { 'x-player-id': playerId } = parse(PlayerIdHeader, headers, 'header');
    const { config } = parse(LobbyConfigParams, params, 'path');
    return { projectId: req.principal!.projectId, config, playerId };
  }

  @Post(':config')
  @Access({ auth: 'client', bucket: 'write' })
  @Doc({ summary: 'Create a lobby; the caller is its host', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeader, body: CreateLobbyBody,
    responses: { 201: { description: 'Lobby', schema: Lobby }, 409: { description: 'Already in a lobby of this configuration', schema: ErrorBody }, ...errors } })
  create(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = this.player(req, headers, params);
    const b = parse(CreateLobbyBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.lobbies.create, { ...who, body: b });
  }

  @Get(':config/me')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: "The caller's lobby of this configuration", tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeader,
    responses: { 200: { description: 'Lobby', schema: Lobby }, ...errors } })
  getMine(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.lobbies.getMine, this.player(req, headers, params));
  }

  @Post(':config/join')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'write' })
  @Doc({ summary: 'Join a lobby by id or by invite code (exactly one of them)', tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeader, body: JoinLobbyBody,
    responses: {
      200: { description: 'Lobby', schema: Lobby }, 400: { description: 'Lobby full or not accepting players', schema: ErrorBody },
      409: { description: 'Already in a lobby of this configuration', schema: ErrorBody }, ...errors,
    } })
  join(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = this.player(req, headers, params);
    const b = parse(JoinLobbyBody, body ?? {}, 'body');
    if ((b.lobbyId === undefined) === (b.code === undefined)) {
      throw validationError([{ loc: ['body'], msg: 'Give exactly one of lobbyId and code', type: 'value_error' }]);
    }
    return this.bus.request(SUBJECTS.lobbies.join, { ...who, ...b });
  }

  @Patch(':config/me')
  @Access({ auth: 'client', bucket: 'write' })
  @Doc({ summary: "Merge into the caller's player state", tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeader, body: PlayerStateBody,
    responses: { 200: { description: 'Lobby', schema: Lobby }, ...errors } })
  updateMyState(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = this.player(req, headers, params);
    const { state } = parse(PlayerStateBody, body, 'body');
    return this.bus.request(SUBJECTS.lobbies.updateMyState, { ...who, state });
  }

  @Delete(':config/me')
  @Access({ auth: 'client', bucket: 'write' })
  @Doc({ summary: "Leave the caller's lobby (host leave and last-player rules apply)", tags: ['lobbies'], auth: 'client', params: LobbyConfigParams, headers: playerHeader,
    responses: { 200: { description: 'Left', schema: LeftLobby }, ...errors } })
  leave(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown): Promise<LeftLobbyReply> {
    return this.bus.request(SUBJECTS.lobbies.leave, this.player(req, headers, params));
  }

  @Get(':config/:id')
  @Access({ auth: 'server', bucket: 'read' })
  @Doc({ summary: 'Get any lobby of the project (server key)', tags: ['lobbies'], auth: 'server', params: LobbyIdParams,
    responses: { 200: { description: 'Lobby', schema: Lobby }, ...adminErrors } })
  adminGet(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { config, id } = parse(LobbyIdParams, params, 'path');
    return this.bus.request(SUBJECTS.lobbies.adminGet, { projectId: req.principal!.projectId, config, lobbyId: id });
  }

  @Delete(':config/:id')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: 'Delete a lobby (server key)', tags: ['lobbies'], auth: 'server', params: LobbyIdParams,
    responses: { 200: { description: 'Deleted', schema: DeletedLobby }, ...adminErrors } })
  adminDelete(@Req() req: AuthedRequest, @Param() params: unknown): Promise<DeletedLobbyReply> {
    const { config, id } = parse(LobbyIdParams, params, 'path');
    return this.bus.request(SUBJECTS.lobbies.adminDelete, { projectId: req.principal!.projectId, config, lobbyId: id });
  }
}
