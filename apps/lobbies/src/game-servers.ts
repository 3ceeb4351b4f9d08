// The servers service as the lobbies service asks it: start a lobby's server, look one up, stop one.
import { Inject, Injectable } from '@nestjs/common';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ServerView, StartServerRequest, SUBJECTS } from '@spawnpoint/proto';

@Injectable()
export class GameServers {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  start(request: StartServerRequest): Promise<ServerView> {
    return this.platform.bus.request<ServerView>(SUBJECTS.servers.start, request);
  }

  /** `fresh`: a view that shows every server event committed so far. */
  get(projectId: string, serverId: string, fresh?: boolean): Promise<ServerView> {
    return this.platform.bus.request<ServerView>(SUBJECTS.servers.get, fresh ? { projectId, serverId, fresh } : { projectId, serverId });
  }

  /** Best effort (the server may be gone already): a lobby's server is stopped as if signalled. */
  async stop(projectId: string, serverId: string): Promise<void> {
    await this.platform.bus.request(SUBJECTS.servers.stop, { projectId, serverId, reason: 'SHUTDOWN_SIGNAL' }).catch((err) => {
      console.error(`lobbies: could not stop server ${serverId}: ${(err as Error).message}`);
    });
  }
}
