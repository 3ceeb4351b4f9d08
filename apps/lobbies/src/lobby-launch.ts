// The launch of a lobby's game server. A direct start launches at once, so the start can answer with a
// refusal; the lobby-launch workflow (libs/domain/src/workflow/lobby-launch.ts) sends the same launch again
// with the same key as command id: a repeat when the start got through (the servers service answers the
// same server, the lobby already has it), the completion of a launch whose process died half way, and a
// timer that hands a lobby left `starting` without a server back to waiting. What happens to the lobby
// once its server runs or stops is the lobby-server workflow's; nothing here follows the server.
import { GameServers, LobbyConfigs } from '@spawnpoint/service-clients';
import { Injectable } from '@nestjs/common';
import { DomainError, LiveLobbyState, LobbyConfig, lobbyLaunchKey, LobbyState } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { ServerView } from '@spawnpoint/proto';
import { logger } from '@spawnpoint/logging';
import { lobbyServerStart } from './lobby-server';
import { isLive, LobbyStates } from './lobby-states';
import { LobbyAggregate } from './lobby-aggregate';

const log = logger('lobbies');

/** A refusal (4xx, a domain rule) is the launch's outcome; anything else may pass and is tried again. */
const refusal = (err: unknown) => err instanceof DomainError || (err instanceof RemoteError && err.body.status < 500);

@Injectable()
export class LobbyLaunch {
  constructor(
    private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate, private readonly configs: LobbyConfigs,
    private readonly servers: GameServers,
  ) {}

  /**
   * Starts the lobby's server and assigns it; the answer is the lobby then (still `starting`). A refusal
   * (the plan's active-server cap, no ready build, the servers service unreachable) puts the lobby back
   * to `waiting` and is the start's own answer, so the host learns why (403 for a full free plan).
   */
  async launch(projectId: string, lobbyId: string, config: LobbyConfig): Promise<LobbyState | null> {
    const { state } = await this.states.load(lobbyId);
    if (!isLive(state) || state.status !== 'starting') return null;
    if (state.server) return state; // the workflow's launch got there first
    return this.start(projectId, lobbyId, state, async () => config);
  }

  /** The workflow's StartLobbyServer: only for the launch it was decided for, and only while it has no server. */
  async resume(lobbyId: string, attempt: number): Promise<void> {
    const { state } = await this.states.load(lobbyId);
    if (!isLive(state) || state.status !== 'starting' || state.server || state.launches !== attempt) return;
    await this.start(state.projectId, lobbyId, state, () => this.configs.get(state.projectId, state.config)).catch((err) => {
      if (!refusal(err)) throw err;
    });
  }

  private async start(projectId: string, lobbyId: string, state: LiveLobbyState, config: () => Promise<LobbyConfig>): Promise<LobbyState> {
    let server: ServerView;
    try {
      const project = await this.configs.project(projectId);
      const request = lobbyServerStart(projectId, project.plan, lobbyId, state.region, await config());
      server = await this.servers.start(request, lobbyLaunchKey(lobbyId, state.launches));
    } catch (err) {
      if (!refusal(err)) log.error({ project_id: projectId }, `lobby ${lobbyId}: could not start its game server: ${(err as Error).message}`);
      await this.lobbies.handle(lobbyId, { type: 'ServerStopped', now: this.lobbies.now() }, { projectId }).catch(() => undefined);
      throw err;
    }
    // A lobby that moved on (deleted, host ended it) while the server launched records the server as
    // unneeded, and the lobby-launch workflow stops it (an intent, retried until the servers service answers).
    const assigned = await this.lobbies.handle(lobbyId, { type: 'ServerAssigned', server, launch: state.launches, now: this.lobbies.now() }, { projectId });
    if (assigned.events.some((e) => e.type === 'LobbyServerUnneeded')) {
      throw new DomainError('conflict', `lobby ${lobbyId} moved on while its server started; the server is being stopped`);
    }
    return assigned.state;
  }
}
