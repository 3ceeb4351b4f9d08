// @spawnpoint/game-server: what a game process does with its SPAWNPOINT_SERVER_TOKEN (docs/game-server-api.md).
export { GameServer, type GameServerOptions, type Health, type WatchClaimOptions } from './game-server';
export { GameServerError, GameServerNetworkError } from './errors';
export type { Server, GameStatus, NetworkPort, GameMatch, GameReport, BackfillState, ErrorBody } from './types';
