// Admin routes over parked events (events a projection could not apply, stored and skipped): each
// service lists its own projections' over the bus, and replays one through the projection that parked
// it. The gateway reads no service's tables.
import { Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import { notFound } from '@spawnpoint/domain';
import { Bus, RemoteError } from '@spawnpoint/messaging';
import { askEveryService, BUS } from '@spawnpoint/platform';
import { ListParkedRequest, parkedListSubject, parkedReplaySubject, ParkedEventReport } from '@spawnpoint/proto';
import { Access, AccessGuard } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { ParkedEventIdParams, ParkedEventList, ParkedEventsQuery, ReplayedEvent } from '../parked-schemas';
import { ErrorBody } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';

const LIST_TIMEOUT_MS = 10_000;
/** The API lists at most this many (each service sends at most as many of its own). */
const MAX_LISTED = 1000;

const bearer = { authorization: { required: true, description: 'Bearer $SPAWNPOINT_ADMIN_TOKEN' } };

@Controller('api/admin/parked-events')
@UseGuards(AccessGuard, InputLimitsGuard)
export class ParkedEventsController {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  /** Every service's parked events (matching `request`); a service that does not answer makes it a 503, not a short list. */
  private async gather(request: ListParkedRequest): Promise<ParkedEventReport[]> {
    const answers = await askEveryService(this.bus, parkedListSubject, request, LIST_TIMEOUT_MS);
    const silent = answers.flatMap((a) => (a.ok ? [] : [`${a.service}: ${a.error}`]));
    if (silent.length) throw new RemoteError({ error: 'Service unavailable', status: 503, detail: `parked events not listed by ${silent.join('; ')}` });
    return answers.flatMap((a) => (a.ok ? a.reply.parked_events : []));
  }

  @Get()
  @Access({ auth: 'admin' })
  @Doc({ summary: 'Events a read model could not apply (parked after its retries), oldest first per projection', tags: ['admin'], auth: 'admin', headers: bearer,
    query: ParkedEventsQuery, responses: { 200: { description: 'Parked events (at most 1000)', schema: ParkedEventList }, 401: { description: 'Bad admin token', schema: ErrorBody } } })
  async list(@Query() query: unknown) {
    const q = parse(ParkedEventsQuery, query, 'query');
    const all = await this.gather(q.projection ? { projection: q.projection } : {});
    all.sort((a, b) => a.projection.localeCompare(b.projection) || Number(BigInt(a.position) - BigInt(b.position)));
    return { parked_events: all.slice(0, MAX_LISTED) };
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
    const [row] = await this.gather({ id });
    if (!row) throw notFound('parked event');
    const result = await this.bus.request(parkedReplaySubject(row.projection), { id }, { timeoutMs: 30_000 });
    return { status: 'replayed', ...result };
  }
}
