// What every log query of a server reads with: the read models, the runtime (metrics), the server's view
// (404 for another project's server) and the injected clock.
import { Inject, Injectable } from '@nestjs/common';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import type { GameRuntime } from '@spawnpoint/runtime';
import { RUNTIME } from '../runtime';
import { ServerViews } from '../server-views';
import { LogReadDeps } from './log-reads';

/** What every log query reads with. */
@Injectable()
export class LogReads implements LogReadDeps {
  readonly db: LogReadDeps['db'];

  constructor(@Inject(PLATFORM) private readonly platform: Platform, @Inject(RUNTIME) readonly runtime: GameRuntime, private readonly views: ServerViews) {
    this.db = platform.db;
  }

  getServer(projectId: string, serverId: string) {
    return this.views.get({ projectId, serverId });
  }

  now(): Date {
    return this.platform.clock();
  }
}
