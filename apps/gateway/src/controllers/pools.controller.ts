// GET /v3/pools (additive, issue 38): each pool region's capacity, as the servers service sizes it now:
// desired and why, next to ready, launching, outdated and claimed. A read (client key allowed, read bucket).
import { Controller, Get, Inject, Req, UseGuards } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { PoolCapacityView, SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { Doc } from '../openapi/doc';
import { ErrorBody, PoolCapacity } from '../schemas';

@Controller('api/v3')
@UseGuards(AccessGuard, InputLimitsGuard)
export class PoolsController {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  @Get('pools')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Each warm-pool region\'s capacity: the ready count kept now and why (min_ready, or the demand policy\'s reasons), with the servers ready, launching, of an older version and claimed', tags: ['servers'], auth: 'client',
    responses: { 200: { description: 'The pool\'s capacity per region', schema: PoolCapacity }, 401: { description: 'Missing or unknown api-key', schema: ErrorBody } } })
  capacity(@Req() req: AuthedRequest): Promise<PoolCapacityView> {
    return this.bus.request(SUBJECTS.servers.poolCapacity, { projectId: req.principal!.projectId });
  }
}
