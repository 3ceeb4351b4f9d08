// The game API's shapes, from the contract package (@spawnpoint/proto), type-only: the published
// declarations inline them.
export type { ServerView as Server, GameStatusView as GameStatus, NetworkPortView as NetworkPort } from '@spawnpoint/proto/dist/servers';
export type { GameMatchView as GameMatch, GameStatusBody as GameReport } from '@spawnpoint/proto/dist/game';
export type { BackfillState } from '@spawnpoint/proto/dist/backfill';
export type { ErrorBody } from '@spawnpoint/proto/dist/http/common';
