// What the legacy lobby API's listener is built from: the gateway's bus, key and player authentication,
// limits and event streams. Its own file, so the listener and the routes' helpers need not import each other.
import type { Bus } from '@spawnpoint/messaging';
import type { KeyAuthenticator } from '../http/auth';
import type { Limiter } from '../http/rate-limits';
import type { LobbyStreams } from '../lobby-streams';
import type { PlayerIdentity } from '../players';

export interface LegacyLobbyApiOptions {
  bus: Bus;
  keys: KeyAuthenticator;
  identity: PlayerIdentity;
  /** The gateway's counters (shared by replicas in distributed mode); this listener's keys are its own. Default: in memory. */
  limiter?: Limiter;
  /** The gateway's lobby event streams (the legacy event stream is one of them); without, no event stream route. */
  streams?: LobbyStreams;
  port: number;
  host: string;
}
