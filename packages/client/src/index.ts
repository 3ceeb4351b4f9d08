// @spawnpoint/client: the typed client of the Spawnpoint HTTP API, for Node 18+ and browsers.
export { Spawnpoint, type SpawnpointOptions } from './client';
export { Admin, Builds, HealthApi, Lobbies, PlayerLobbies, Projects, Servers, type WaitOptions } from './resources';
export { LobbyEventStream, type LobbyEvent, type LobbyEventMap, type LobbyEventName, type LobbyEventsOptions, type ProjectLobbyEventMap, type StreamEvent } from './lobby-events';
export { Transport, retryAfterSeconds, type RetryPolicy, type RequestOptions, type TransportOptions } from './transport';
export * from './errors';
export type * from './types';
export { poolStatus, type PoolRegion } from './pools';
