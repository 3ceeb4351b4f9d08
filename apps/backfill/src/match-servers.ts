// The game server a match runs on, as the backfill service reads it (the servers service answers, 404 for
// another project's server): its match id, start, whether it stopped, and from custom_data.match its mode
// (the mode's backfillWindow and allowBackfill) and roster.
import { Inject, Injectable } from '@nestjs/common';
import { BackfillServer, DEFAULT_BACKFILL_WINDOW_S } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { SUBJECTS } from '@spawnpoint/proto';

export interface MatchServer { server: BackfillServer; roster: string[][]; projectId: string }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

@Injectable()
export class MatchServers {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly configs: LobbyConfigs) {}

  async read(projectId: string, serverId: string): Promise<MatchServer> {
    const view = await this.platform.bus.request(SUBJECTS.servers.get, { projectId, serverId });
    const custom = isObject(view.custom_data) ? view.custom_data : {};
    const match = isObject(custom.match) ? custom.match : null;
    const roster = Array.isArray(match?.teams) ? (match!.teams as unknown[]).filter(Array.isArray).map((t) => (t as unknown[]).filter((p): p is string => typeof p === 'string')) : [];
    let windowSeconds = DEFAULT_BACKFILL_WINDOW_S;
    let engineManaged = false;
    if (match && typeof match.mode === 'string' && typeof custom.lobby_config === 'string') {
      const mode = (await this.configs.get(projectId, custom.lobby_config).catch(() => null))?.modes[match.mode];
      if (mode) {
        windowSeconds = mode.backfillWindow;
        engineManaged = mode.allowBackfill;
      }
    }
    return {
      projectId,
      roster,
      server: { instanceId: view.instance_id, matchId: view.match_id, startedAt: view.started_at, stopped: view.status === 'stopped', windowSeconds, engineManaged },
    };
  }
}
