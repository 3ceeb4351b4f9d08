// The launch of a lobby's game server after a direct start, and its healing: a lobby left `starting`
// without a server (the replica launching it died) goes back to waiting (the sweeper finds it). What
// happens to the lobby once its server runs or stops is the lobby-server workflow's (lobbies.host.ts),
// also when the server ran or stopped before the assignment; nothing here follows the server.
import { Injectable } from '@nestjs/common';
import { DomainError, LobbyConfig, LobbyState } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { ServerView } from '@spawnpoint/proto';
import { GameServers } from './game-servers';
import { LobbyConfigs } from './lobby-configs';
import { lobbyServerStart } from './lobby-server';
import { isLive, LobbyStates } from './lobby-states';
import { LobbyWrites, Ran } from './lobby-writes';

@Injectable()
export class LobbyLaunch {
  constructor(
    private readonly states: LobbyStates, private readonly writes: LobbyWrites, private readonly configs: LobbyConfigs,
    private readonly servers: GameServers,
  ) {}

  /**
   * Starts the lobby's server and assigns it; the answer is the lobby then (still `starting`). A refusal
   * (the plan's active-server cap, no ready build, the servers service unreachable) puts the lobby back
   * to `waiting` and is the start's own answer, so the host learns why (403 for a full free plan).
   */
  async launch(projectId: string, lobbyId: string, config: LobbyConfig): Promise<LobbyState | null> {
    let server: ServerView;
    try {
      const { state } = await this.states.load(lobbyId);
      if (!isLive(state) || state.status !== 'starting') return null;
      const project = await this.configs.project(projectId);
      server = await this.servers.start(lobbyServerStart(projectId, project.plan, lobbyId, state.region, config));
    } catch (err) {
      if (!(err instanceof DomainError || (err instanceof RemoteError && err.body.status < 500))) {
        console.error(`lobby ${lobbyId}: could not start its game server: ${(err as Error).message}`);
      }
      await this.writes.run(projectId, lobbyId, { type: 'ServerStopped', now: this.writes.now() }).catch(() => undefined);
      throw err;
    }
    let assigned: Ran;
    try {
      assigned = await this.writes.run(projectId, lobbyId, { type: 'ServerAssigned', server: server as never, now: this.writes.now() });
    } catch (err) {
      // The lobby moved on (deleted, host ended it) while the server launched: nobody needs it.
      void this.servers.stop(projectId, server.instance_id);
      throw err;
    }
    return assigned.state;
  }

  /** A lobby `starting` for over a minute without a server (its launch was lost): back to waiting. */
  async abandonStart(projectId: string, lobbyId: string): Promise<void> {
    console.error(`lobby ${lobbyId}: starting for over a minute without a server (its launch was lost): back to waiting`);
    // instanceId '' matches no server: if one was assigned meanwhile (the read model lags), nothing changes.
    await this.writes.run(projectId, lobbyId, { type: 'ServerStopped', instanceId: '', now: this.writes.now() });
  }
}
