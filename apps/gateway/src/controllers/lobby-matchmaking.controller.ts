// Matchmaking routes of a lobby (v3): start, explain, cancel, confirm, decline. Same player rules and per-player
// rate limit as the other lobby player routes (lobbies.controller.ts).
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse } from '../http/validation';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';
import { Doc } from '../openapi/doc';
import { PlayerIdentity } from '../players';
import { ErrorBody, LobbyConfigParams, MatchmakingExplanation, StartMatchmakingBody } from '../schemas';
import { errors, hostErrors, lobbyPlayer, LobbyPlayer, lobbyReply, playerHeaders } from './lobby-player';

@Controller('api/v3/lobbies')
@UseGuards(AccessGuard, InputLimitsGuard)
export class LobbyMatchmakingController {
  constructor(@Inject(BUS) private readonly bus: Bus, private readonly identity: PlayerIdentity) {}

  private player(req: AuthedRequest, headers: unknown, params: unknown): Promise<LobbyPlayer> {
    return lobbyPlayer(this.identity, req, headers, params);
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/me/matchmaking')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: "Put the lobby in the matchmaking queue of a mode of its configuration (host): in_queue, matchmaking set", tags: ['matchmaking'], auth: 'client',
    params: LobbyConfigParams, headers: playerHeaders, body: StartMatchmakingBody,
    responses: { ...lobbyReply, 400: { description: "The configuration has no matchmaking modes, or not this one (the error names the mode)", schema: ErrorBody },
      409: { description: 'The lobby is not waiting, or a player is searching in another lobby', schema: ErrorBody }, ...hostErrors,
      422: { description: "Invalid body (mode missing), or the party is larger than the mode's maxPartySize", schema: ErrorBody } } })
  async startMatchmaking(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown, @Body() body: unknown) {
    const who = await this.player(req, headers, params);
    const { mode } = parse(StartMatchmakingBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.lobbies.startMatchmaking, { ...who, mode });
  }

  @Get(':config/me/matchmaking')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: "Why the caller's lobby has not matched yet: its window and when it grows, candidates, the nearest rating gap, blockedBy reasons with their figures",
    tags: ['matchmaking'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders,
    responses: { 200: { description: 'Explanation', schema: MatchmakingExplanation }, 409: { description: 'The lobby is not searching', schema: ErrorBody }, ...errors } })
  async explainMatchmaking(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.matchmaking.explain, await this.player(req, headers, params));
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':config/me/matchmaking')
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Leave the queue, or decline the match found (host): waiting', tags: ['matchmaking'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders,
    responses: { ...lobbyReply, 409: { description: 'The lobby is not searching', schema: ErrorBody }, ...hostErrors } })
  async cancelMatchmaking(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.lobbies.cancelMatchmaking, await this.player(req, headers, params));
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':config/me/confirm-match')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Confirm the match found for the lobby (any member; again is a no-op)', tags: ['matchmaking'], auth: 'client', params: LobbyConfigParams,
    headers: playerHeaders, responses: { ...lobbyReply, 409: { description: 'No match waiting for confirmation, or the deadline has passed', schema: ErrorBody }, ...errors } })
  async confirmMatch(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.lobbies.confirmMatch, await this.player(req, headers, params));
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':config/me/confirm-match')
  @Access({ auth: 'client', bucket: 'player' })
  @Doc({ summary: 'Decline the match found for the lobby (any member): the match dissolves, this lobby is waiting with matchmakingError declined, '
    + 'confirmed lobbies go back in the queue', tags: ['matchmaking'], auth: 'client', params: LobbyConfigParams, headers: playerHeaders,
    responses: { ...lobbyReply, 409: { description: 'No match pending (the lobby is not match_found)', schema: ErrorBody }, ...errors } })
  async declineMatch(@Req() req: AuthedRequest, @Headers() headers: unknown, @Param() params: unknown) {
    return this.bus.request(SUBJECTS.lobbies.declineMatch, await this.player(req, headers, params));
  }
}
