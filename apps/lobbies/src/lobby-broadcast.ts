// Every change is broadcast on `lobbies.updates` for the gateways' event streams. A broadcast can be lost
// (NATS core is at most once): the next update carries the whole lobby, a client that reconnects with
// Last-Event-ID is replayed from the store, and a lost deletion is repeated once a gateway still reports a
// stream on the deleted lobby (the sweeper asks `repeatDeletion`).
import { Inject, Injectable } from '@nestjs/common';
import { LobbyState } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { LobbyUpdate, SUBJECTS } from '@spawnpoint/proto';
import { lobbyUpdate } from './lobby-views';
import { logger } from '@spawnpoint/logging';

const log = logger('lobbies');

@Injectable()
export class LobbyBroadcast {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  /** The change is stored: a failed broadcast must not turn it into an error for the caller. */
  async send(update: LobbyUpdate): Promise<void> {
    await this.platform.bus.broadcast(SUBJECTS.lobbies.updates, update)
      .catch((err) => log.error({ project_id: update.projectId }, `lobbies: update of ${update.lobbyId} at ${update.revision} not broadcast: ${(err as Error).message}`));
  }

  /** The deletion update again, for a lobby the store says is deleted (its broadcast was lost); else nothing. */
  async repeatDeletion(lobbyId: string, { state, revision }: { state: LobbyState; revision: number }): Promise<boolean> {
    if (state.status !== 'deleted') return false;
    const update = lobbyUpdate({ projectId: state.projectId, config: state.config, lobbyId, revision }, state, { reason: state.deleteReason }, state.players.map((p) => p.id));
    await this.platform.bus.broadcast(SUBJECTS.lobbies.updates, update);
    return true;
  }
}
