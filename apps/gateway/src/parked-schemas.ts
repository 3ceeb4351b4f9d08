// Schemas of the admin parked-events routes and of the projections part of /api/health: contract classes of proto.
export { ParkedEventIdParams, ParkedEventsQuery, ParkedEvent, ParkedEventList, ReplayedEvent, ProjectionHealth } from '@spawnpoint/proto';
