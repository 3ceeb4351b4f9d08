// Every projects use case through its handler, reached over the in-process bus as the gateway reaches it,
// on the PostgreSQL event store and read models.
import { RemoteError } from '@spawnpoint/messaging';
import { sha256 } from '@spawnpoint/platform';
import { CreatedProject, Principal, ProjectAdminView, ProjectView, REDACTED_SECRET, SettingsView, SUBJECTS } from '@spawnpoint/proto';
import { ServiceBed, startServiceBed } from '../../../test/support/service-bed';
import { ProjectsModule } from './projects.module';

describe('projects handlers (in-process bus, PostgreSQL)', () => {
  let bed: ServiceBed;
  beforeAll(async () => { bed = await startServiceBed('projh', [ProjectsModule]); });
  afterAll(() => bed?.close());

  const create = (name = 'game') => bed.request<CreatedProject>(SUBJECTS.projects.create, { name, plan: 'free' });
  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: RemoteError) => e);

  it('CreateProject: keys shown once, found by hash only', async () => {
    const made = await create();
    expect(made).toMatchObject({ name: 'game', plan: 'free', server_key: expect.stringMatching(/^pf_[0-9A-Za-z]{32}$/), client_key: expect.stringMatching(/^pfclient_/) });
    const server = await bed.request<Principal>(SUBJECTS.projects.authenticate, { keyHash: sha256(made.server_key) });
    expect(server).toMatchObject({ projectId: made.project_id, kind: 'server', plan: 'free', rateLimits: { read_per_second: 100 } });
    expect(await bed.request(SUBJECTS.projects.authenticate, { keyHash: made.server_key })).toBeNull();
  });

  it('RotateKeys: the old keys stop working at once', async () => {
    const made = await create();
    const rotated = await bed.request<CreatedProject>(SUBJECTS.projects.rotateKeys, { projectId: made.project_id });
    expect(rotated.server_key).not.toBe(made.server_key);
    expect(await bed.request(SUBJECTS.projects.authenticate, { keyHash: sha256(made.client_key) })).toBeNull();
    expect(await bed.request(SUBJECTS.projects.authenticate, { keyHash: sha256(rotated.client_key) })).toMatchObject({ kind: 'client' });
  });

  it('ChangePlan: plan and limits in the answer and in the principal', async () => {
    const made = await create();
    const changed = await bed.request<ProjectAdminView>(SUBJECTS.projects.changePlan, {
      projectId: made.project_id, plan: 'pro', rate_limits: { read_per_second: 7, write_per_second: 8, player_per_second: 9 },
    });
    expect(changed).toMatchObject({ project_id: made.project_id, plan: 'pro', rate_limits: { read_per_second: 7, write_per_second: 8, player_per_second: 9 } });
    expect(await bed.request(SUBJECTS.projects.authenticate, { keyHash: sha256(made.server_key) })).toMatchObject({ plan: 'pro', rateLimits: { read_per_second: 7 } });
    const missing = await refusal(bed.request(SUBJECTS.projects.changePlan, { projectId: '00000000-0000-4000-8000-000000000000', plan: 'pro' }));
    expect(missing).toMatchObject({ body: { status: 404 } });
  });

  it('UpdateSettings / GetSettings / GetAuthConfig: secrets stored, shown redacted, given to the gateway whole', async () => {
    const made = await create();
    const auth = { provider: 'jwt', secret: 'hush-hush-hush-hush-hush-hush-32', player_id_claim: 'sub' };
    const updated = await bed.request<SettingsView>(SUBJECTS.projects.updateSettings, { projectId: made.project_id, patch: { auth_config: auth } });
    expect(updated.auth_config).toMatchObject({ provider: 'jwt', secret: REDACTED_SECRET });
    expect((await bed.request<SettingsView>(SUBJECTS.projects.getSettings, { projectId: made.project_id })).auth_config.secret).toBe(REDACTED_SECRET);
    expect(await bed.request(SUBJECTS.projects.authConfig, { projectId: made.project_id })).toMatchObject(auth);
  });

  it('GetProject: cached, and exact after a change; another id is 404', async () => {
    const made = await create('cached');
    expect(await bed.request<ProjectView>(SUBJECTS.projects.get, { projectId: made.project_id })).toMatchObject({ name: 'cached', plan: 'free' });
    await bed.request(SUBJECTS.projects.changePlan, { projectId: made.project_id, plan: 'pro' });
    expect(await bed.request<ProjectView>(SUBJECTS.projects.get, { projectId: made.project_id })).toMatchObject({ plan: 'pro' });
    expect(await refusal(bed.request(SUBJECTS.projects.get, { projectId: 'nope' }))).toMatchObject({ body: { status: 404 } });
  });

  it('ListPools: only projects with a pool_config; a malformed one is refused whole, with its defaults filled in otherwise', async () => {
    const plain = await create('no pool');
    const pooled = await create('pool');
    const bad = await bed.request(SUBJECTS.projects.updateSettings, {
      projectId: plain.project_id, patch: { pool_config: { version_tag: 'default', compute_size: 'small', regions: { 'us-east': 1 } } },
    }).then(() => null, (e: RemoteError) => e.body);
    expect(bad).toMatchObject({ status: 422, detail: expect.arrayContaining([expect.objectContaining({ loc: ['body', 'patch', 'pool_config', 'build_name'] })]) });
    const set = await bed.request(SUBJECTS.projects.updateSettings, {
      projectId: pooled.project_id, patch: { pool_config: { enabled: true, build_name: 'default', regions: { 'us-east': { min_ready: 1, max: 2 } } } },
    });
    expect(set.pool_config).toEqual({ enabled: true, build_name: 'default', regions: { 'us-east': { min_ready: 1, max: 2 } }, build_version: null, compute_size: 'small' });
    const ids = (await bed.request<ProjectView[]>(SUBJECTS.projects.listPools, {})).map((p) => p.projectId);
    expect(ids).toContain(pooled.project_id);
    expect(ids).not.toContain(plain.project_id);
  });
});
