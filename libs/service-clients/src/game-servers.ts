// The servers service as the lobbies and matchmaking services ask it: start a lobby's server, stop one. What the server
// does next reaches the lobby as events (the lobby-server workflow), never by asking.
import { Inject, Injectable } from '@nestjs/common';
import { COMMAND_ID_HEADER, RemoteError } from '@spawnpoint/messaging';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ListServersRequest, ServerView, StartServerRequest, SUBJECTS } from '@spawnpoint/proto';

@Injectable()
export class GameServers {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  /** `commandId`: the launch's key, so a start sent again (by the lobby-launch workflow) is the same start. */
  start(request: StartServerRequest, commandId: string): Promise<ServerView> {
    return this.platform.bus.request(SUBJECTS.servers.start, request, { headers: { [COMMAND_ID_HEADER]: commandId } });
  }

  /** The live (launching or running) servers started for a match (`match_id`), in one read. */
  async ofMatch(projectId: string, matchId: string): Promise<ServerView[]> {
    const request: ListServersRequest = { projectId, match_id: matchId, include_launching: true, include_pool: true, limit: 100 };
    return (await this.platform.bus.request(SUBJECTS.servers.list, request)).servers;
  }

  /**
   * A server stopped as if signalled. A server already stopped, or gone (404), is an answer: nothing is logged,
   * nothing is retried (a normal match end stops a server that its game already stopped). A servers service
   * that does not answer (no responders, timeout, 503) throws: callers are workflow intents, which the runner
   * retries until the stop gets through (issue 36: a stop swallowed here left the game running until its TTL).
   */
  async stop(projectId: string, serverId: string): Promise<void> {
    try {
      await this.platform.bus.request(SUBJECTS.servers.stop, { projectId, serverId, reason: 'SHUTDOWN_SIGNAL' });
    } catch (err) {
      if (err instanceof RemoteError && err.body.status < 500) return; // gone, stopped, not ours: nothing to stop
      throw err;
    }
  }
}
