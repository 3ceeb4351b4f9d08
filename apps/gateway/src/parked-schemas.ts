// Schemas of the admin parked-events routes and of the projections part of /api/health.
import { z } from 'zod';

export const ParkedEventIdParams = z.strictObject({ id: z.string().regex(/^[0-9]{1,18}$/, 'must be a parked event id (digits)') });
export const ParkedEventsQuery = z.strictObject({ projection: z.string().min(1).max(64).optional() });

export const ParkedEvent = z.object({
  id: z.string(),
  projection: z.string().describe('read model that could not apply the event'),
  position: z.string().describe('global position of the event in the event store'),
  event_id: z.string(),
  stream_id: z.string(),
  event_type: z.string(),
  error: z.string().describe('the error of the last attempt'),
  attempts: z.number().int(),
  first_failed_at: z.string(),
  last_failed_at: z.string(),
});
export const ParkedEventList = z.object({ parked_events: z.array(ParkedEvent) });
export const ReplayedEvent = z.object({
  status: z.literal('replayed'),
  id: z.string(),
  projection: z.string(),
  position: z.string(),
  reapplied: z.number().int().describe('later events of the same stream applied again after it'),
});

export const ProjectionHealth = z.object({
  name: z.string(),
  parked_events: z.number().int(),
  lag_seconds: z.number().int().describe('age of the oldest event the projection has not applied yet'),
});
