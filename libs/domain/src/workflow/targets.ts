// What a workflow's command intent may carry, by its target: a command of the named aggregate, or the named
// request. One map for every workflow, so a service's dispatcher (libs/platform routeIntents) is typed by
// target and needs no cast per intent. Only dispatchers import this file.
import type { BackfillCommand } from '../backfill/backfill';
import type { LobbyCommand } from '../lobby/commands';
import type { MatchCommand } from '../matchmaking/match';
import type { ServerCommand } from '../server/commands';
import type { StartLobbyServer, StopLobbyServer } from './lobby-launch';
import type { ReserveMatchLobby, StartMatchServer, StopMatchServer, StopStrayMatchServers, UpdateMatchRoster } from './match-formation';
import type { RefillPool, RestartCrashedServer } from './server-lifecycle';

/** `{ aggregate: A }` targets carry an `AggregateCommands[A]`. */
export interface AggregateCommands {
  server: ServerCommand;
  lobby: LobbyCommand;
  match: MatchCommand;
  backfill: BackfillCommand;
}

/** `{ request: R }` targets carry a `WorkflowRequests[R]` (its `type` is R). */
export interface WorkflowRequests {
  StartLobbyServer: StartLobbyServer;
  StopLobbyServer: StopLobbyServer;
  RestartCrashedServer: RestartCrashedServer;
  RefillPool: RefillPool;
  ReserveMatchLobby: ReserveMatchLobby;
  StartMatchServer: StartMatchServer;
  StopMatchServer: StopMatchServer;
  StopStrayMatchServers: StopStrayMatchServers;
  UpdateMatchRoster: UpdateMatchRoster;
}
