// Admin routes over parked events (events a projection could not apply, stored and skipped): list them
// from the shared read-model database, replay one through the service that runs its projection.
import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import { notFound } from '@spawnpoint/domain';
import { Bus } from '@spawnpoint/messaging';
import { BUS, findParked, listParked, READ_MODELS, ReplayResult } from '@spawnpoint/platform';
import { parkedReplaySubject } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { Access, AccessGuard } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { ParkedEventIdParams, ParkedEventList, ParkedEventsQuery, ReplayedEvent } from '../parked-schemas';
import { ErrorBody } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';

const bearer = { authorization: { required: true, description: 'Bearer $SPAWNPOINT_ADMIN_TOKEN' } };

@Controller('api/admin/parked-events')
@UseGuards(AccessGuard, InputLimitsGuard)
export class ParkedEventsController {
  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(READ_MODELS) private readonly db: ReadModels) {}

  @Get()
  @Access({ auth: 'admin' })
  @Doc({ summary: 'Events a read model could not apply (parked after its retries), oldest first per projection', tags: ['admin'], auth: 'admin', headers: bearer,
    query: ParkedEventsQuery, responses: { 200: { description: 'Parked events (at most 1000)', schema: ParkedEventList }, 401: { description: 'Bad admin token', schema: ErrorBody } } })
  async list(@Query() query: unknown) {
    const q = parse(ParkedEventsQuery, query, 'query');
    return { parked_events: await listParked(this.db, q.projection) };
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':id/replay')
  @HttpCode(200)
  @Access({ auth: 'admin' })
  @Doc({ summary: 'Apply a parked event to its read model again (after a fix); it leaves the park when it succeeds', tags: ['admin'], auth: 'admin', headers: bearer,
    params: ParkedEventIdParams, responses: {
      200: { description: 'Applied, no longer parked', schema: ReplayedEvent },
      404: { description: 'No such parked event', schema: ErrorBody },
      409: { description: 'It failed again (the error is in `error`); it stays parked', schema: ErrorBody },
    } })
  async replay(@Param() params: unknown) {
    const { id } = parse(ParkedEventIdParams, params, 'path');
    const row = await findParked(this.db, id);
    if (!row) throw notFound('parked event');
    const result = await this.bus.request<ReplayResult>(parkedReplaySubject(row.projection), { id }, { timeoutMs: 30_000 });
    return { status: 'replayed', ...result };
  }
}
