// Admin replay of a parked event: the gateway asks the service that runs the event's projection (each
// service answers for its own projections' names).

/** The bus subject on which the owner of `projection` replays its parked events. */
export const parkedReplaySubject = (projection: string): string => `parked.replay.${projection}`;

export interface ReplayParkedRequest {
  id: string;
}
