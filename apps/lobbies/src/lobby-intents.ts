// The lobbies service's dispatcher of workflow intents (ADR-0010): a command on a lobby, run through the
// same write path as the handlers (claims, broadcast), with the intent's key as its command id; a launch
// (StartLobbyServer) through LobbyLaunch, the same path as a direct start, with the same key. Repeats and
// refusals are intents' outcomes (the lobby gone, moved on, or on another server: resolved); a key already on
// the lobby's stream is not applied again (LobbyWrites.run's `once`).
import { Injectable } from '@nestjs/common';
import { LobbyCommand, StartLobbyServer } from '@spawnpoint/domain';
import { intentOutcome, IntentDispatcher } from '@spawnpoint/platform';
import { LobbyLaunch } from './lobby-launch';
import { isLive, LobbyStates } from './lobby-states';
import { LobbyWrites } from './lobby-writes';

@Injectable()
export class LobbyIntents {
  constructor(private readonly states: LobbyStates, private readonly writes: LobbyWrites, private readonly launches: LobbyLaunch) {}

  readonly dispatch: IntentDispatcher = async (intent) => {
    const target = intent.target;
    if ('request' in target && target.request === 'StartLobbyServer') {
      const c = intent.command as StartLobbyServer;
      return this.launches.resume(c.lobbyId, c.attempt);
    }
    if (!('aggregate' in target) || target.aggregate !== 'lobby') throw new Error(`lobbies: no route for the intent ${intent.key}`);
    await intentOutcome(async () => {
      // The workflow may not know the project (LobbyServerAssigned carries none): the lobby's own state does.
      const projectId = target.projectId ?? (await this.projectOf(target.id));
      if (!projectId) return; // no such lobby (any more): nothing to move
      await this.writes.run(projectId, target.id, intent.command as LobbyCommand, intent.key, { once: true });
    });
  };

  private async projectOf(lobbyId: string): Promise<string | null> {
    const { state } = await this.states.load(lobbyId);
    return isLive(state) ? state.projectId : null;
  }
}
