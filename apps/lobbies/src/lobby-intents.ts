// The lobbies service's dispatcher of workflow intents (ADR-0010): a command on a lobby, run through the
// same write path as the handlers (claims, broadcast), with the intent's key as its command id; a launch
// (StartLobbyServer) through LobbyLaunch, the same path as a direct start, with the same key; a server stop
// (StopLobbyServer) through GameServers.stop, which throws while the servers service does not answer (retried). Repeats and
// refusals are intents' outcomes (the lobby gone, moved on, or on another server: resolved); a key already on
// the lobby's stream is not applied again (Aggregate.handle's `key`).
import { Injectable } from '@nestjs/common';
import { CommandIntent, LobbyCommand, StopLobbyServer } from '@spawnpoint/domain';
import { IntentDispatcher, routeIntents, unlessRefused } from '@spawnpoint/platform';
import { GameServers } from '@spawnpoint/service-clients';
import { LobbyLaunch } from './lobby-launch';
import { isLive, LobbyStates } from './lobby-states';
import { LobbyAggregate } from './lobby-aggregate';

@Injectable()
export class LobbyIntents {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate, private readonly launches: LobbyLaunch, private readonly servers: GameServers) {}

  readonly dispatch: IntentDispatcher = routeIntents('lobbies', {
    aggregates: { lobby: (lobbyId, command, intent) => this.onLobby(lobbyId, command, intent) },
    requests: {
      StartLobbyServer: (command) => this.launches.resume(command.lobbyId, command.attempt),
      StopLobbyServer: (command) => this.stopServer(command),
    },
  });

  /** Throws while the servers service does not answer: the runner retries until the stop gets through. */
  private async stopServer(c: StopLobbyServer): Promise<void> {
    const { state } = await this.states.load(c.lobbyId);
    if (state.status === 'none') return; // never created here: nothing of ours to stop
    await this.servers.stop(state.projectId, c.serverId);
  }

  private async onLobby(lobbyId: string, command: LobbyCommand, intent: CommandIntent): Promise<void> {
    // The workflow may not know the project (LobbyServerAssigned carries none): the lobby's own state does.
    const projectId = intent.target.projectId ?? (await this.projectOf(lobbyId));
    if (!projectId) return; // no such lobby (any more): nothing to move
    await unlessRefused(this.lobbies.handle(lobbyId, command, { projectId, key: intent.key }));
  }

  private async projectOf(lobbyId: string): Promise<string | null> {
    const { state } = await this.states.load(lobbyId);
    return isLive(state) ? state.projectId : null;
  }
}
