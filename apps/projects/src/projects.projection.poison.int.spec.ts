// The poison, through the real projects projection and ProjectionRunner on PostgreSQL: settings
// nested ~130 levels deep (Prisma refuses to write them) are parked, and every other project's events
// before and after it are applied (settings updates, creations), so no tenant waits on another's event.
import { randomUUID } from 'node:crypto';
import { defaultSettings, ProjectSettings } from '@spawnpoint/domain';
import type { PostgresEventStore } from '@spawnpoint/eventstore';
import { listParked, ProjectionRunner } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';
import { captureLogs } from '../../../libs/logging/src/testing';
import { createProjectionTestBed, ProjectionTestBed } from '../../../test/support/projections';
import { projectsProjection } from './projects.projection';

const settings = (lobbyConfigs: Record<string, unknown>[] = []): ProjectSettings =>
  ({ ...defaultSettings({ udpPortId: randomUUID(), tcpPortId: randomUUID() }), lobby_configs: lobbyConfigs });

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) value = { deeper: value };
  return value;
}

describe('projects projection: a poison event', () => {
  let bed: ProjectionTestBed;
  let store: PostgresEventStore;
  let models: ReadModels;

  beforeAll(async () => {
    bed = await createProjectionTestBed('projpoison');
    ({ store, models } = bed);
  });
  afterAll(() => bed?.close());

  const at = () => new Date().toISOString();
  const create = (projectId: string) => store.appendToStream(`project-${projectId}`, [{
    type: 'ProjectCreated',
    data: { projectId, name: projectId, plan: 'free', serverKeyHash: randomUUID(), clientKeyHash: randomUUID(), settings: settings(), at: at() },
  }], 'no_stream');
  const update = (projectId: string, s: ProjectSettings) =>
    store.appendToStream(`project-${projectId}`, [{ type: 'ProjectSettingsUpdated', data: { projectId, settings: s, at: at() } }], 'any');

  it('parks deep settings of one project; the other projects are updated and created', async () => {
    const runner = new ProjectionRunner(store, models, [projectsProjection], { poisonAttempts: 3, poisonBackoffMs: 20 });
    await runner.start();
    const logs = captureLogs();
    try {
      const [victim, other, late] = ['victim', 'other', 'late'].map((p) => `${p}-${randomUUID().slice(0, 8)}`);
      await create(victim);
      await create(other);
      const poison = (await update(victim, settings([{ name: 'deep', customProperties: nested(130) }]))).position;
      const otherUpdate = (await update(other, settings([{ name: 'shallow', customProperties: nested(3) }]))).position;
      const created = (await create(late)).position;

      await runner.waitFor(poison, `project-${victim}`, 20_000);
      await runner.waitFor(otherUpdate, `project-${other}`, 20_000);
      await runner.waitFor(created, `project-${late}`, 20_000);

      const row = await models.project.findUnique({ where: { id: other } });
      expect((row!.settings as { lobby_configs: { name: string }[] }).lobby_configs[0].name).toBe('shallow');
      expect(await models.project.findUnique({ where: { id: late } })).not.toBeNull();
      expect(await models.apiKey.count({ where: { projectId: late } })).toBe(2);
      // The victim keeps its previous settings; the event is parked with Prisma's error.
      const victimRow = await models.project.findUnique({ where: { id: victim } });
      expect((victimRow!.settings as { lobby_configs: unknown[] }).lobby_configs).toEqual([]);
      const parked = await listParked(models, 'projects');
      expect(parked).toHaveLength(1);
      expect(parked[0]).toMatchObject({ position: String(poison), stream_id: `project-${victim}`, event_type: 'ProjectSettingsUpdated', attempts: 3 });
      expect(parked[0].error.toLowerCase()).toMatch(/recursion|depth|nest/);
      expect((await models.checkpoint.findUnique({ where: { name: 'projects' } }))?.position).toBe(created);
      // Replaying it while the projection still cannot apply it: 409, still parked.
      await expect(runner.replay(parked[0].id)).rejects.toMatchObject({ code: 'conflict' });
      expect(await listParked(models, 'projects')).toHaveLength(1);
      expect(logs.messages('error').filter((m) => /PARKED event/.test(m))).toHaveLength(1);
    } finally {
      logs.restore();
      await runner.stop();
    }
  });
});
