// Parked events: the admin HTTP inputs and answers, and the bus request that replays one. The gateway
// asks the service that runs the event's projection (each service answers for its own projections' names).
import { BusRequest } from './contracts';
import { Int, NestedArray, Enum, Str } from './validation/fields';

/** The bus subject on which the owner of `projection` replays its parked events. */
export const parkedReplaySubject = (projection: string): `parked.replay.${string}` => `parked.replay.${projection}`;

@BusRequest('parked.replay.*')
export class ReplayParkedRequest { @Str() id!: string }

export class ParkedEventIdParams { @Str({ pattern: /^[0-9]{1,18}$/, msg: 'must be a parked event id (digits)' }) id!: string }
export class ParkedEventsQuery { @Str({ min: 1, max: 64, optional: true }) projection?: string }

export class ParkedEvent {
  @Str() id!: string;
  @Str({ description: 'read model that could not apply the event' }) projection!: string;
  @Str({ description: 'global position of the event in the event store' }) position!: string;
  @Str() event_id!: string;
  @Str() stream_id!: string;
  @Str() event_type!: string;
  @Str({ description: 'the error of the last attempt' }) error!: string;
  @Int() attempts!: number;
  @Str() first_failed_at!: string;
  @Str() last_failed_at!: string;
}
export class ParkedEventList { @NestedArray(() => ParkedEvent) parked_events!: ParkedEvent[] }
export class ReplayedEvent {
  @Enum(['replayed']) status!: 'replayed';
  @Str() id!: string;
  @Str() projection!: string;
  @Str() position!: string;
  @Int({ description: 'later events of the same stream applied again after it' }) reapplied!: number;
}
export class ProjectionHealth {
  @Str() name!: string;
  @Int() parked_events!: number;
  @Int({ description: 'age of the oldest event the projection has not applied yet' }) lag_seconds!: number;
}
