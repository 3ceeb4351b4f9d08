// A lobby's server came up or went away (the servers service's events, consumed by the host): the lobby
// follows it, to in_game or back to waiting. A later step makes this a workflow decider.
import { Inject, Injectable } from '@nestjs/common';
import { DomainError, LobbyCommand, lobbyStream } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ServerView } from '@spawnpoint/proto';
import { GameServers } from './game-servers';
import { LobbyReadModel } from './lobby-read-model';
import { LobbyWrites } from './lobby-writes';

@Injectable()
export class ServerEvents {
  constructor(
    @Inject(PLATFORM) private readonly platform: Platform, private readonly readModel: LobbyReadModel,
    private readonly writes: LobbyWrites, private readonly servers: GameServers,
  ) {}

  async apply(type: string, serverId: string): Promise<void> {
    const byServer = () => this.platform.db.lobby.findFirst({ where: { serverId }, select: { id: true, projectId: true } });
    let row = await byServer();
    if (!row) {
      // The assignment may be committed but not yet in the lobbies read model (it batches under load).
      await this.readModel.waitForHead(lobbyStream(''));
      row = await byServer();
    }
    if (!row) return;
    const server = type === 'ServerRunning' ? await this.runningServer(row.projectId, serverId) : null;
    const command: LobbyCommand = type === 'ServerRunning'
      ? { type: 'ServerRunning', server: (server ?? undefined) as never, now: this.writes.now() }
      : { type: 'ServerStopped', instanceId: serverId, now: this.writes.now() };
    await this.writes.run(row.projectId, row.id, command).catch((err) => {
      if (!(err instanceof DomainError)) throw err;
    });
  }

  /** The server as its read model shows it once running (it may lag the event by a moment). */
  private async runningServer(projectId: string, serverId: string): Promise<ServerView | null> {
    let view: ServerView | null = null;
    for (let i = 0; i < 20; i++) {
      view = await this.servers.get(projectId, serverId).catch(() => null);
      if (!view || view.status !== 'launching') return view;
      await new Promise((r) => setTimeout(r, 50));
    }
    return view && { ...view, status: 'running' };
  }
}
