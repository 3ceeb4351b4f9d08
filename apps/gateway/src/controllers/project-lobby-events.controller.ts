// The project-wide lobby event stream (server key): every lobby change of one configuration and the
// project's queue figures, for operators (the web console's lobbies page). Players use /me/events.
import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { parse } from '../http/validation';
import { ProjectLobbyStreams } from '../lobby-streams';
import { Doc } from '../openapi/doc';
import { ErrorBody, LobbyConfigParams, ProjectLobbyEventsQuery, ProjectLobbyEventStream } from '../schemas';

@Controller('api/v3/lobbies')
@UseGuards(AccessGuard, InputLimitsGuard)
export class ProjectLobbyEventsController {
  constructor(private readonly streams: ProjectLobbyStreams) {}

  @Get(':config/events')
  // Like the player streams: no rate-limit bucket (a long-lived read); at most MAX_PROJECT_STREAMS per project and gateway.
  @Access({ auth: 'server', queryKey: true })
  @Doc({ summary: 'Live changes of every lobby of a configuration and the project\'s queue figures (server key, server-sent events)', tags: ['lobbies'],
    auth: 'server', params: LobbyConfigParams, query: ProjectLobbyEventsQuery,
    responses: {
      200: { description: 'The event stream', schema: ProjectLobbyEventStream, contentType: 'text/event-stream' },
      401: { description: 'Invalid or missing API key', schema: ErrorBody },
      403: { description: 'Client key', schema: ErrorBody },
      422: { description: 'Invalid configuration name or query', schema: ErrorBody },
    } })
  events(@Req() req: AuthedRequest, @Param() params: unknown, @Query() query: unknown, @Res() reply: FastifyReply): void {
    const { config } = parse(LobbyConfigParams, params, 'path');
    parse(ProjectLobbyEventsQuery, query, 'query');
    reply.hijack();
    this.streams.open(reply.raw, req.principal!.projectId, config);
  }
}
