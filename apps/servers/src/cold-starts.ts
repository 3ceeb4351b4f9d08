// Cold-start latency (spawnpoint_server_cold_start_seconds): from a server's creation (a start request or a
// pool refill) or a restart in this process until its game has bound every port and the server is running.
// In memory: a server adopted after this process restarted is not measured, nor is a crash restart (it keeps
// its machine's first start). Forgotten once the server stops.
import { Injectable } from '@nestjs/common';
import { observeColdStart } from '@spawnpoint/platform';
import { ServersReadModel } from './servers-read-model';

@Injectable()
export class ColdStarts {
  private readonly since = new Map<string, { at: number; region: string }>();

  constructor(readModel: ServersReadModel) {
    readModel.onApplied(({ event }) => {
      if (event.type === 'ServerStopped') this.since.delete(event.data.serverId);
    });
  }

  begin(serverId: string, region: string): void {
    this.since.set(serverId, { at: performance.now(), region });
  }

  /** A start refused: no server to measure. */
  forget(serverId: string): void {
    this.since.delete(serverId);
  }

  /** The server is running now: its cold start, if this process began one. */
  running(serverId: string): void {
    const started = this.since.get(serverId);
    if (!started) return;
    this.since.delete(serverId);
    observeColdStart(started.region, (performance.now() - started.at) / 1000);
  }
}
