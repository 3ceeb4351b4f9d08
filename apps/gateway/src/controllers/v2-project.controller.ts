// GET /api/v2/project: the project an api-key belongs to (the hosted service's v2 API; any valid key).
import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import type { V2ProjectView } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { Doc } from '../openapi/doc';
import { ErrorBody, V2Project } from '../schemas';

@Controller('api/v2/project')
@UseGuards(AccessGuard, InputLimitsGuard)
export class V2ProjectController {
  @Get()
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: "Legacy: the api-key's project id", tags: ['legacy'], auth: 'client',
    responses: { 200: { description: 'Project', schema: V2Project }, 401: { description: 'Missing or unknown api-key', schema: ErrorBody } } })
  get(@Req() req: AuthedRequest): V2ProjectView {
    return { project_id: req.principal!.projectId };
  }
}
