// The projects service: the Project aggregate (settings, keys as hashes, plan and limits) and the
// key lookup the gateway authenticates with.
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DEFAULT_RATE_LIMITS, defaultSettings, notFound, Plan, projectDecider, projectStream, RateLimits } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Handlers, Platform, PLATFORM, randomBase62, ServiceHost, sha256, ViewCache } from '@spawnpoint/platform';
import {
  AuthenticateRequest, ChangePlanRequest, CreatedProject, CreateProjectRequest, GetProjectRequest, Principal,
  ProjectAdminView, ProjectAuthConfig, ProjectView, REDACTED_SECRET, RotateKeysRequest, SettingsView, SUBJECTS, UpdateSettingsRequest,
} from '@spawnpoint/proto';
import { projectsProjection } from './projects.projection';

export const newServerKey = () => `pf_${randomBase62(32)}`;
export const newClientKey = () => `pfclient_${randomBase62(32)}`;

@Injectable()
export class ProjectsService extends ServiceHost {
  /** Every server start asks for its project: served from memory, exact because the projection invalidates it. */
  private readonly views = new ViewCache<ProjectView>();

  constructor(@Inject(PLATFORM) platform: Platform) {
    super(platform, 'projects', ['project']);
  }

  protected readModels() {
    return [{ ...projectsProjection, applied: (event: RecordedEvent) => this.views.invalidate((event.data as { projectId: string }).projectId) }];
  }

  protected handlers(): Handlers {
    return {
      [SUBJECTS.projects.create]: (r: CreateProjectRequest) => this.create(r),
      [SUBJECTS.projects.rotateKeys]: (r: RotateKeysRequest) => this.rotateKeys(r),
      [SUBJECTS.projects.changePlan]: (r: ChangePlanRequest) => this.changePlan(r),
      [SUBJECTS.projects.authenticate]: (r: AuthenticateRequest) => this.authenticate(r),
      [SUBJECTS.projects.get]: (r: GetProjectRequest) => this.get(r),
      [SUBJECTS.projects.getSettings]: (r: GetProjectRequest) => this.getSettings(r),
      [SUBJECTS.projects.updateSettings]: (r: UpdateSettingsRequest) => this.updateSettings(r),
      [SUBJECTS.projects.listPools]: () => this.listPools(),
      [SUBJECTS.projects.authConfig]: (r: GetProjectRequest) => this.authConfig(r),
    };
  }

  async create(req: CreateProjectRequest): Promise<CreatedProject> {
    const projectId = req.projectId ?? randomUUID();
    const serverKey = req.serverKey ?? newServerKey();
    const clientKey = req.clientKey ?? newClientKey();
    await this.command(projectDecider, projectStream(projectId), {
      type: 'CreateProject', projectId, name: req.name, plan: req.plan, serverKeyHash: sha256(serverKey), clientKeyHash: sha256(clientKey),
      settings: defaultSettings({ udpPortId: randomUUID(), tcpPortId: randomUUID() }), now: this.now(),
    }, { projectId });
    return { project_id: projectId, name: req.name, plan: req.plan, server_key: serverKey, client_key: clientKey };
  }

  async rotateKeys(req: RotateKeysRequest): Promise<Omit<CreatedProject, 'name' | 'plan'>> {
    const serverKey = req.serverKey ?? newServerKey();
    const clientKey = req.clientKey ?? newClientKey();
    await this.command(projectDecider, projectStream(req.projectId), {
      type: 'RotateKeys', serverKeyHash: sha256(serverKey), clientKeyHash: sha256(clientKey), now: this.now(),
    }, { projectId: req.projectId });
    return { project_id: req.projectId, server_key: serverKey, client_key: clientKey };
  }

  async changePlan(req: ChangePlanRequest): Promise<ProjectAdminView> {
    await this.command(projectDecider, projectStream(req.projectId), {
      type: 'ChangePlan', plan: req.plan, rateLimits: req.rate_limits, now: this.now(),
    }, { projectId: req.projectId });
    const p = await this.db.project.findUnique({ where: { id: req.projectId } });
    if (!p) throw notFound('project');
    return {
      project_id: p.id, name: p.name, plan: p.plan as Plan, rate_limits: this.limits(p.rateLimits),
      created_at: p.createdAt.toISOString(), updated_at: p.updatedAt.toISOString(),
    };
  }

  async authenticate(req: AuthenticateRequest): Promise<Principal | null> {
    const key = await this.db.apiKey.findUnique({ where: { hash: req.keyHash }, include: { project: true } });
    if (!key) return null;
    const settings = key.project.settings as unknown as SettingsView;
    return {
      projectId: key.projectId,
      kind: key.kind as Principal['kind'],
      plan: key.project.plan as Plan,
      rateLimits: this.limits(key.project.rateLimits),
      clientKeyServerControl: settings.client_key_server_control !== false,
    };
  }

  async get(req: GetProjectRequest): Promise<ProjectView> {
    const view = await this.views.get(req.projectId, async () => {
      const p = await this.db.project.findUnique({ where: { id: req.projectId } });
      if (!p) return null;
      const { updated_at: _u, ...settings } = p.settings as unknown as SettingsView;
      return { projectId: p.id, name: p.name, plan: p.plan as Plan, settings, rateLimits: this.limits(p.rateLimits) };
    });
    if (!view) throw notFound('project');
    return view;
  }

  /** The stored auth_config, secrets included: only the gateway asks, to verify player tokens (never returned to clients). */
  async authConfig(req: GetProjectRequest): Promise<ProjectAuthConfig> {
    return (await this.get(req)).settings.auth_config;
  }

  /** Every project that has a pool_config (the servers service keeps their pools). */
  async listPools(): Promise<ProjectView[]> {
    const rows = await this.db.$queryRaw<{ id: string }[]>`SELECT id FROM projects WHERE settings->'pool_config' IS NOT NULL AND settings->>'pool_config' <> 'null'`;
    return Promise.all(rows.map((r) => this.get({ projectId: r.id })));
  }

  async getSettings(req: GetProjectRequest): Promise<SettingsView> {
    const p = await this.db.project.findUnique({ where: { id: req.projectId } });
    if (!p) throw notFound('project');
    return redactSecrets(p.settings as unknown as SettingsView);
  }

  async updateSettings(req: UpdateSettingsRequest): Promise<SettingsView> {
    await this.command(projectDecider, projectStream(req.projectId), { type: 'UpdateSettings', patch: req.patch, now: this.now() }, { projectId: req.projectId });
    return this.getSettings({ projectId: req.projectId });
  }

  private limits(stored: unknown): RateLimits {
    return { ...DEFAULT_RATE_LIMITS, ...((stored as Partial<RateLimits> | null) ?? {}) };
  }
}

const SECRET_FIELDS = ['secret', 'secret_key', 'web_api_key'];

/** auth_config secrets never leave the service. */
export function redactSecrets(settings: SettingsView): SettingsView {
  const auth = { ...settings.auth_config };
  for (const f of SECRET_FIELDS) if (f in auth) auth[f] = REDACTED_SECRET;
  return { ...settings, auth_config: auth };
}
