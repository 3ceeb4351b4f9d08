// A lobby that exists and is not deleted: the states every use case acts on.
import { LiveLobbyState, LobbyState } from '@spawnpoint/domain';

export const isLive = (s: LobbyState): s is LiveLobbyState => s.status !== 'none' && s.status !== 'deleted';
