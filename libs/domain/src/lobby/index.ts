import { Decider } from '../kit';
import { LobbyCommand } from './commands';
import { decide } from './decide';
import { LobbyEvent } from './events';
import { evolve } from './evolve';
import { LobbyState } from './state';

export * from './commands';
export * from './events';
export * from './state';
export * from './view';
export { MAX_LOBBY_PLAYERS, MIN_LOBBY_PLAYERS } from './decide';
export { queueTicket, SEARCHING } from './matchmaking';

export const lobbyStream = (lobbyId: string) => `lobby-${lobbyId}`;

export const lobbyDecider: Decider<LobbyCommand, LobbyEvent, LobbyState> = {
  initialState: { status: 'none' },
  decide,
  evolve,
};
export * from './claim';
export * from './config';
