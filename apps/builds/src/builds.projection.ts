import { BuildEvent } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, Tx } from '@spawnpoint/platform';

export const buildsProjection: Projection = {
  name: 'builds',
  categories: ['build'],
  async apply(recorded: RecordedEvent, tx: Tx) {
    const event = { type: recorded.type, data: recorded.data } as BuildEvent;
    switch (event.type) {
      case 'BuildUploadRequested':
      case 'BuildImageRegistered': {
        const d = event.data;
        const at = new Date(d.at);
        const image = event.type === 'BuildImageRegistered' ? event.data.image : null;
        await tx.build.upsert({
          where: { id: d.buildId },
          create: {
            id: d.buildId, projectId: d.projectId, name: d.name, version: d.version,
            status: image ? 'ready' : 'uploading', kind: image ? 'image' : 'zip', image,
            executablePath: event.type === 'BuildUploadRequested' ? event.data.executablePath : null,
            createdAt: at, updatedAt: at,
          },
          update: {},
        });
        return;
      }
      case 'BuildUploadReceived':
        await tx.build.update({ where: { id: event.data.buildId }, data: { status: 'processing', sizeBytes: BigInt(event.data.sizeBytes), updatedAt: new Date(event.data.at) } });
        return;
      case 'BuildReady':
        await tx.build.update({
          where: { id: event.data.buildId },
          data: { status: 'ready', executablePath: event.data.executablePath, sizeBytes: BigInt(event.data.sizeBytes), updatedAt: new Date(event.data.at) },
        });
        return;
      case 'BuildFailed':
        await tx.build.update({ where: { id: event.data.buildId }, data: { status: 'failed', error: event.data.error, updatedAt: new Date(event.data.at) } });
        return;
      case 'BuildDeleted':
        await tx.build.update({ where: { id: event.data.buildId }, data: { deleted: true, updatedAt: new Date(event.data.at) } });
        return;
    }
  },
};
