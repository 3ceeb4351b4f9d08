// The game API (ADR-0016, docs/game-server-api.md): a game machine calls with its SPAWNPOINT_SERVER_TOKEN
// and reaches only its own server. The guard checks the token's form; the servers service checks it is the
// server's current token and the server is not stopped (else 401), and names the server's project for
// the calls that go on to other services.
import { Body, Controller, Get, HttpCode, Inject, Post, Put, Req, UseGuards } from '@nestjs/common';
import { Bus, RemoteError } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { ErrorBody, GameMatchView, GameServerReply, GameStatusBody, ServerView, SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { InputLimitsGuard } from '../http/input-limits.guard';

const errors = {
  401: { description: 'Missing, malformed or unknown server token, or its server is stopped (or restarted: a new token)', schema: ErrorBody },
};
/** The servers service's game API subjects: each takes the server and its token hash (and its own fields), each answers GameServerReply. */
type GameSubject = typeof SUBJECTS.servers.gameSelf | typeof SUBJECTS.servers.gameReady | typeof SUBJECTS.servers.gameStatus | typeof SUBJECTS.servers.gameStop;
const server = { description: 'This server (as GET /v3/servers/{id} shows it)', schema: ServerView };

@Controller('api/v3/game')
@UseGuards(AccessGuard, InputLimitsGuard)
export class GameController {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  private ask(subject: GameSubject, req: AuthedRequest, extra: object = {}): Promise<GameServerReply> {
    const { serverId, hash } = req.gameToken!;
    return this.bus.request(subject, { serverId, tokenHash: hash, ...extra });
  }

  @Get('self')
  @Access({ auth: 'game' })
  @Doc({ summary: "The game's own server: status, ports, and after a pool claim its name, custom_data and match_id", tags: ['game'], auth: 'server-token',
    responses: { 200: server, ...errors } })
  async self(@Req() req: AuthedRequest): Promise<ServerView> {
    return (await this.ask(SUBJECTS.servers.gameSelf, req)).server;
  }

  @Post('ready')
  @HttpCode(200)
  @Access({ auth: 'game' })
  @Doc({ summary: 'The game is ready for players: a launching server becomes running (required with readiness "sdk"); repeated, nothing changes', tags: ['game'],
    auth: 'server-token', responses: { 200: server, 409: { description: 'The server is stopped', schema: ErrorBody }, ...errors } })
  async ready(@Req() req: AuthedRequest): Promise<ServerView> {
    return (await this.ask(SUBJECTS.servers.gameReady, req)).server;
  }

  @Put('status')
  @HttpCode(200)
  @Access({ auth: 'game' })
  @Doc({ summary: "Report the player count and/or health; shown as the server's `game` (omitted fields keep their last value)", tags: ['game'], auth: 'server-token',
    body: GameStatusBody, responses: { 200: server, 422: { description: 'Invalid body', schema: ErrorBody }, ...errors } })
  async status(@Req() req: AuthedRequest, @Body() body: unknown): Promise<ServerView> {
    const b = parse(GameStatusBody, body ?? {}, 'body');
    return (await this.ask(SUBJECTS.servers.gameStatus, req, { body: b })).server;
  }

  @Post('stop')
  @HttpCode(200)
  @Access({ auth: 'game' })
  @Doc({ summary: 'Ask to be stopped: the server is stopped (SIGTERM to the game, SIGKILL after the grace period) and the token stops working', tags: ['game'],
    auth: 'server-token', responses: { 200: { description: 'The stopped server', schema: ServerView }, ...errors } })
  async stop(@Req() req: AuthedRequest): Promise<ServerView> {
    return (await this.ask(SUBJECTS.servers.gameStop, req)).server;
  }

  @Get('match')
  @Access({ auth: 'game' })
  @Doc({ summary: "The server's match_id and, for a matchmade match, its backfill state (roster, backfill_open, roster_version); else backfill null", tags: ['game'],
    auth: 'server-token', responses: { 200: { description: 'Match', schema: GameMatchView }, ...errors } })
  async match(@Req() req: AuthedRequest): Promise<GameMatchView> {
    const { projectId, server: s } = await this.ask(SUBJECTS.servers.gameSelf, req);
    const backfill = await this.bus.request(SUBJECTS.backfill.get, { projectId, serverId: s.instance_id }).catch((err: unknown) => {
      // No backfill record: the server was not started by matchmaking.
      if (err instanceof RemoteError && err.body.status === 404) return null;
      throw err;
    });
    return { match_id: s.match_id, backfill };
  }
}
