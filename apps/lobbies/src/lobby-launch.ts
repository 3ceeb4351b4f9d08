// The launch of a lobby's game server after a direct start, and its healing: a lobby left `starting`
// without a server (the replica launching it died) goes back to waiting (the sweeper finds it). A later
// step makes this process a workflow decider; for now it runs as it always did.
import { Injectable } from '@nestjs/common';
import { DomainError, LobbyConfig, LobbyState } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { ServerView } from '@spawnpoint/proto';
import { GameServers } from './game-servers';
import { LobbyConfigs } from './lobby-configs';
import { lobbyServerStart } from './lobby-server';
import { isLive, LobbyStates } from './lobby-states';
import { LobbyWrites, Ran } from './lobby-writes';
import { ServerEvents } from './server-events';

@Injectable()
export class LobbyLaunch {
  constructor(
    private readonly states: LobbyStates, private readonly writes: LobbyWrites, private readonly configs: LobbyConfigs,
    private readonly servers: GameServers, private readonly serverEvents: ServerEvents,
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
    void this.follow(projectId, lobbyId, server.instance_id);
    return assigned.state;
  }

  /** A lobby `starting` for over a minute without a server (its launch was lost): back to waiting. */
  async abandonStart(projectId: string, lobbyId: string): Promise<void> {
    console.error(`lobby ${lobbyId}: starting for over a minute without a server (its launch was lost): back to waiting`);
    // instanceId '' matches no server: if one was assigned meanwhile (the read model lags), nothing changes.
    await this.writes.run(projectId, lobbyId, { type: 'ServerStopped', instanceId: '', now: this.writes.now() });
  }

  /**
   * The server may have come up before the assignment was visible to the server-event consumer: ask for a
   * view that shows every server event committed so far (the consumer saw none it could place).
   */
  private async follow(projectId: string, lobbyId: string, serverId: string): Promise<void> {
    try {
      const now = await this.servers.get(projectId, serverId, true);
      if (now.status !== 'launching') await this.serverEvents.apply(now.status === 'running' ? 'ServerRunning' : 'ServerStopped', serverId);
    } catch (err) {
      if (!(err instanceof DomainError)) console.error(`lobby ${lobbyId}: could not follow its game server: ${(err as Error).message}`);
      await this.writes.run(projectId, lobbyId, { type: 'ServerStopped', instanceId: serverId, now: this.writes.now() }).catch(() => undefined);
    }
  }
}
