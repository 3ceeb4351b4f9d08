// projects + api_keys read models (key hashes only).
import { ProjectEvent } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, Tx } from '@spawnpoint/platform';

/** Both key hashes of a project; replays insert nothing twice. */
function insertKeys(tx: Tx, projectId: string, serverKeyHash: string, clientKeyHash: string, createdAt: Date) {
  return tx.apiKey.createMany({
    data: [
      { hash: serverKeyHash, projectId, kind: 'server', createdAt },
      { hash: clientKeyHash, projectId, kind: 'client', createdAt },
    ],
    skipDuplicates: true,
  });
}

export const projectsProjection: Projection = {
  name: 'projects',
  categories: ['project'],
  async apply(recorded: RecordedEvent, tx: Tx) {
    const event = { type: recorded.type, data: recorded.data } as ProjectEvent;
    switch (event.type) {
      case 'ProjectCreated': {
        const d = event.data;
        const at = new Date(d.at);
        await tx.project.upsert({
          where: { id: d.projectId },
          create: { id: d.projectId, name: d.name, plan: d.plan, settings: { ...d.settings, updated_at: d.at } as object, createdAt: at, updatedAt: at },
          update: {},
        });
        await insertKeys(tx, d.projectId, d.serverKeyHash, d.clientKeyHash, at);
        return;
      }
      case 'ProjectSettingsUpdated':
        await tx.project.update({
          where: { id: event.data.projectId },
          data: { settings: { ...event.data.settings, updated_at: event.data.at } as object, updatedAt: new Date(event.data.at) },
        });
        return;
      case 'ProjectKeysRotated': {
        const d = event.data;
        const at = new Date(d.at);
        await tx.apiKey.deleteMany({ where: { hash: { in: [d.previousServerKeyHash, d.previousClientKeyHash] } } });
        await insertKeys(tx, d.projectId, d.serverKeyHash, d.clientKeyHash, at);
        return;
      }
      case 'ProjectPlanChanged':
        await tx.project.update({
          where: { id: event.data.projectId },
          data: { plan: event.data.plan, rateLimits: (event.data.rateLimits ?? undefined) as object | undefined, updatedAt: new Date(event.data.at) },
        });
        if (event.data.rateLimits === null) {
          await tx.$executeRaw`UPDATE projects SET rate_limits = NULL WHERE id = ${event.data.projectId}`;
        }
        return;
    }
  },
};
