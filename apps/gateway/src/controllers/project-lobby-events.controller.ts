// The project-wide lobby event stream (server key): every lobby change of one configuration and the
// project's queue figures, for operators (the web console's lobbies page). Players use /me/events.
import { Controller, Get, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { parse } from '../http/validation';
import { ProjectLobbyStreams, StreamQuota } from '../lobby-streams';
import { Doc } from '../openapi/doc';
import { ErrorBody, LobbyConfigParams, ProjectLobbyEventsQuery, ProjectLobbyEventStream } from '../schemas';

@Controller('api/v3/lobbies')
@UseGuards(AccessGuard, InputLimitsGuard)
export class ProjectLobbyEventsController {
  constructor(private readonly streams: ProjectLobbyStreams, private readonly quota: StreamQuota) {}

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
      429: { description: 'The API key holds as many open event streams as it may (SPAWNPOINT_MAX_STREAMS_PER_KEY)', schema: ErrorBody },
    } })
  events(@Req() req: AuthedRequest, @Param() params: unknown, @Query() query: unknown, @Res() reply: FastifyReply): void {
    const { config } = parse(LobbyConfigParams, params, 'path');
    parse(ProjectLobbyEventsQuery, query, 'query');
    // The key's cap on open streams (429); the project's own (MAX_PROJECT_STREAMS) ends its oldest instead.
    const slot = this.quota.reserve(req.principal!);
    reply.hijack();
    this.streams.open(reply.raw, req.principal!.projectId, config);
    slot.holdUntilClosed(reply.raw);
  }
}
