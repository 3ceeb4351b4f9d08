// The lobby configs of a project (used by the lobbies and matchmaking services) (its settings' lobby_configs), asked of the projects service and kept a
// few seconds: every lobby request names its config. A project change drops the entry at once on every
// replica (the `projects.changed` broadcast, and the host's consumer); a config not found in a cached entry
// is looked up again before a 404.
import { Inject, Injectable } from '@nestjs/common';
import { LobbyConfig, resolveLobbyConfig, resolveModes } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { Unsubscribe } from '@spawnpoint/messaging';
import { integrationEventName, parseBusEvent, ProjectChangedBroadcast, ProjectChangedEvent, ProjectView, SUBJECTS, validListener } from '@spawnpoint/proto';

/** Project settings are re-read after this long, and at once when a project event says they changed. */
const SETTINGS_TTL_MS = 5_000;

@Injectable()
export class LobbyConfigs {
  private readonly cache = new Map<string, { at: number; value: Promise<ProjectView> }>();

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async get(projectId: string, nameOrId: string): Promise<LobbyConfig> {
    const cached = this.cache.get(projectId);
    const project = await this.current(projectId);
    try {
      return resolveLobbyConfig(project.settings.lobby_configs, nameOrId);
    } catch (err) {
      if (!cached) throw err;
      // A config added a moment ago: read the settings again before saying it does not exist.
      return resolveLobbyConfig((await this.project(projectId)).settings.lobby_configs, nameOrId);
    }
  }

  /** Names of the project's enabled lobby configs that have matchmaking modes. */
  async withModes(projectId: string): Promise<string[]> {
    const project = await this.current(projectId);
    return (project.settings.lobby_configs ?? [])
      .filter((c) => c.enabled !== false && Object.keys(resolveModes(c.matchmaking)).length > 0)
      .map((c) => String(c.name));
  }

  private current(projectId: string): Promise<ProjectView> {
    const cached = this.cache.get(projectId);
    return cached && this.nowMs() - cached.at < SETTINGS_TTL_MS ? cached.value : this.project(projectId);
  }

  /** The project as the projects service shows it now (its plan, for a server start); cached for `get`. */
  project(projectId: string): Promise<ProjectView> {
    const value = this.platform.bus.request(SUBJECTS.projects.get, { projectId });
    this.cache.set(projectId, { at: this.nowMs(), value });
    value.catch(() => this.cache.delete(projectId));
    return value;
  }

  /** The project's settings or plan changed. */
  invalidate(projectId: string): void {
    this.cache.delete(projectId);
  }

  /**
   * Drops a project's entry whenever its settings or plan change: at once on every replica through the
   * projects service's `projects.changed` broadcast (ADR-0020), and through the durable consumer named
   * `durable` (shared by the service's replicas: one of them gets each event, even one sent while it was away).
   */
  async follow(durable: string): Promise<Unsubscribe> {
    const subject = SUBJECTS.projects.changed;
    const stopListening = await this.platform.bus.listen(subject, validListener<ProjectChangedBroadcast>(subject, (c) => this.invalidate(c.projectId)));
    const stopConsuming = await this.platform.bus.consume({ durable, filters: ['project.ProjectSettingsUpdated', 'project.ProjectPlanChanged'] }, (e) => {
      this.invalidate(parseBusEvent<ProjectChangedEvent>(integrationEventName(e), e.data).projectId);
    });
    return async () => {
      await stopListening();
      await stopConsuming();
    };
  }

  private nowMs(): number {
    return this.platform.clock().getTime();
  }
}
