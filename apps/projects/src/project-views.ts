// The projects read side shared by the query handlers: the cached ProjectView (every server start asks
// for its project; exact because each applied project event invalidates it) and the mappers of each view.
import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_RATE_LIMITS, notFound, Plan, RateLimits } from '@spawnpoint/domain';
import { PLATFORM, Platform, ViewCache } from '@spawnpoint/platform';
import { ProjectView, REDACTED_SECRET, SettingsView } from '@spawnpoint/proto';
import { ProjectsReadModel } from './projects-read-model';
import { storedSettings } from './stored-settings';

@Injectable()
export class ProjectViews {
  readonly cache = new ViewCache<ProjectView>();

  constructor(@Inject(PLATFORM) private readonly platform: Platform, readModel: ProjectsReadModel) {
    readModel.onApplied(({ event }) => this.cache.invalidate(event.data.projectId));
  }

  async get(projectId: string): Promise<ProjectView> {
    const view = await this.cache.get(projectId, async () => {
      const p = await this.platform.db.project.findUnique({ where: { id: projectId } });
      if (!p) return null;
      const { updated_at: _u, ...settings } = storedSettings(p);
      return { projectId: p.id, name: p.name, plan: p.plan as Plan, settings, rateLimits: rateLimits(p.rateLimits) };
    });
    if (!view) throw notFound('project');
    return view;
  }

  /** The stored settings as clients see them (secrets redacted). */
  async settings(projectId: string): Promise<SettingsView> {
    const p = await this.platform.db.project.findUnique({ where: { id: projectId } });
    if (!p) throw notFound('project');
    return redactSecrets(storedSettings(p));
  }
}

export function rateLimits(stored: unknown): RateLimits {
  return { ...DEFAULT_RATE_LIMITS, ...((stored as Partial<RateLimits> | null) ?? {}) };
}

const SECRET_FIELDS = ['secret', 'secret_key', 'web_api_key'];

/** auth_config secrets never leave the service. */
export function redactSecrets(settings: SettingsView): SettingsView {
  const auth = { ...settings.auth_config };
  for (const f of SECRET_FIELDS) if (f in auth) auth[f] = REDACTED_SECRET;
  return { ...settings, auth_config: auth };
}
