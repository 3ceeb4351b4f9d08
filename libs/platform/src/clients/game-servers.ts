// The servers service as the lobbies and matchmaking services ask it: start a lobby's server, stop one. What the server
// does next reaches the lobby as events (the lobby-server workflow), never by asking.
import { Inject, Injectable } from '@nestjs/common';
import { COMMAND_ID_HEADER, RemoteError } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { Platform } from '../nest/service-host';
import { PLATFORM } from '../nest/tokens';
import { ListServersRequest, ServerList, ServerView, StartServerRequest, SUBJECTS } from '@spawnpoint/proto';

const log = logger('game-servers');

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

  /**
   * For a stop no workflow knows of (a server that started for a lobby which moved on meanwhile): retried in
   * this process with backoff while the servers service does not answer, for up to `forMs`.
   */
  stopEventually(projectId: string, serverId: string, forMs = 10 * 60_000): void {
    const until = Date.now() + forMs;
    const attempt = (delayMs: number): void => {
      this.stop(projectId, serverId).catch((err: unknown) => {
        if (Date.now() + delayMs > until) {
          log.error({ project_id: projectId }, `could not stop server ${serverId}: ${(err as Error).message}; its TTL stops it`);
          return;
        }
        log.warn({ project_id: projectId }, `could not stop server ${serverId} yet (${(err as Error).message}); retrying in ${delayMs} ms`);
        setTimeout(() => attempt(Math.min(delayMs * 2, 30_000)), delayMs).unref();
      });
    };
    attempt(1_000);
  }
}
