// The servers service as the lobbies and matchmaking services ask it: start a lobby's server, stop one. What the server
// does next reaches the lobby as events (the lobby-server workflow), never by asking.
import { Inject, Injectable } from '@nestjs/common';
import { COMMAND_ID_HEADER } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { Platform } from '../nest/service-host';
import { PLATFORM } from '../nest/tokens';
import { ListServersRequest, ServerList, ServerView, StartServerRequest, SUBJECTS } from '@spawnpoint/proto';

const log = logger('lobbies');

@Injectable()
export class GameServers {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  /** `commandId`: the launch's key, so a start sent again (by the lobby-launch workflow) is the same start. */
  start(request: StartServerRequest, commandId: string): Promise<ServerView> {
    return this.platform.bus.request<ServerView>(SUBJECTS.servers.start, request, { headers: { [COMMAND_ID_HEADER]: commandId } });
  }

  /** The live (launching or running) servers started for a match (`match_id`), in one read. */
  async ofMatch(projectId: string, matchId: string): Promise<ServerView[]> {
    const request: ListServersRequest = { projectId, match_id: matchId, include_launching: true, include_pool: true, limit: 100 };
    return (await this.platform.bus.request<ServerList>(SUBJECTS.servers.list, request)).servers;
  }

  /** Best effort (the server may be gone already): a lobby's server is stopped as if signalled. */
  async stop(projectId: string, serverId: string): Promise<void> {
    await this.platform.bus.request(SUBJECTS.servers.stop, { projectId, serverId, reason: 'SHUTDOWN_SIGNAL' }).catch((err) => {
      log.error({ project_id: projectId }, `lobbies: could not stop server ${serverId}: ${(err as Error).message}`);
    });
  }
}
