// Which bus subject becomes which command or query of the lobbies service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { AdminDeleteLobby, AdminDeleteLobbyHandler } from './commands/admin-delete.handler';
import { CloseLobby, CloseLobbyHandler } from './commands/close-lobby.handler';
import { CreateLobby, CreateLobbyHandler } from './commands/create-lobby.handler';
import { EndMatch, EndMatchHandler } from './commands/end-match.handler';
import { Heartbeat, HeartbeatHandler } from './commands/heartbeat.handler';
import { JoinLobby, JoinLobbyHandler } from './commands/join-lobby.handler';
import { KickPlayer, KickPlayerHandler } from './commands/kick.handler';
import { LeaveLobby, LeaveLobbyHandler } from './commands/leave-lobby.handler';
import { StartLobby, StartLobbyHandler } from './commands/start-lobby.handler';
import { TransferHost, TransferHostHandler } from './commands/transfer-host.handler';
import { UpdateMyState, UpdateMyStateHandler } from './commands/update-my-state.handler';
import { UpdateLobbySettings, UpdateLobbySettingsHandler } from './commands/update-settings.handler';
import { CancelMatchmaking, CancelMatchmakingHandler } from './commands/cancel-matchmaking.handler';
import { ConfirmMatch, ConfirmMatchHandler } from './commands/confirm-match.handler';
import { DeclineMatch, DeclineMatchHandler } from './commands/decline-match.handler';
import { RunMatchCommand, RunMatchCommandHandler } from './commands/match-command.handler';
import { StartMatchmaking, StartMatchmakingHandler } from './commands/start-matchmaking.handler';
import { AdminGetLobby, AdminGetLobbyHandler } from './queries/admin-get.handler';
import { BrowseLobbies, BrowseLobbiesHandler } from './queries/browse.handler';
import { GetMyLobby, GetMyLobbyHandler } from './queries/get-mine.handler';
import { OpenLobbyStream, OpenLobbyStreamHandler } from './queries/open-stream.handler';

const L = SUBJECTS.lobbies;

export const lobbiesRoutes = () => [
  route(L.create, CreateLobby),
  route(L.browse, BrowseLobbies),
  route(L.getMine, GetMyLobby),
  route(L.join, JoinLobby),
  route(L.leave, LeaveLobby),
  route(L.updateMyState, UpdateMyState),
  route(L.updateSettings, UpdateLobbySettings),
  route(L.kick, KickPlayer),
  route(L.transferHost, TransferHost),
  route(L.start, StartLobby),
  route(L.heartbeat, Heartbeat),
  route(L.endMatch, EndMatch),
  route(L.close, CloseLobby),
  route(L.openStream, OpenLobbyStream),
  route(L.adminGet, AdminGetLobby),
  route(L.adminDelete, AdminDeleteLobby),
  route(L.startMatchmaking, StartMatchmaking),
  route(L.cancelMatchmaking, CancelMatchmaking),
  route(L.confirmMatch, ConfirmMatch),
  route(L.declineMatch, DeclineMatch),
  route(L.matchCommand, RunMatchCommand),
];

export const LOBBIES_HANDLERS = [
  CreateLobbyHandler, JoinLobbyHandler, LeaveLobbyHandler, UpdateMyStateHandler, UpdateLobbySettingsHandler, KickPlayerHandler,
  TransferHostHandler, StartLobbyHandler, HeartbeatHandler, EndMatchHandler, CloseLobbyHandler, AdminDeleteLobbyHandler,
  GetMyLobbyHandler, AdminGetLobbyHandler, BrowseLobbiesHandler, OpenLobbyStreamHandler,
  StartMatchmakingHandler, CancelMatchmakingHandler, ConfirmMatchHandler, DeclineMatchHandler, RunMatchCommandHandler,
];
