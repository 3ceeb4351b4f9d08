import { ServerEvent } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, Tx } from '@spawnpoint/platform';

export const serversProjection: Projection = {
  name: 'servers',
  categories: ['server'],
  async apply(recorded: RecordedEvent, tx: Tx) {
    const event = { type: recorded.type, data: recorded.data } as ServerEvent;
    switch (event.type) {
      case 'ServerStarted': {
        const d = event.data;
        const at = new Date(d.at);
        await tx.server.upsert({
          where: { id: d.serverId },
          create: {
            id: d.serverId, projectId: d.projectId, name: d.name, status: 'launching', region: d.region, computeSize: d.computeSize,
            versionTag: d.versionTag, version: d.version, buildId: d.buildId, networkPorts: d.networkPorts as object[],
            startupArgs: d.startupArgs, serviceType: d.serviceType, autoRestart: d.autoRestart, customData: (d.customData ?? undefined) as object | undefined,
            ttl: d.ttl, isPoolServer: d.isPoolServer, matchId: d.matchId, createdAt: at, updatedAt: at,
          },
          update: {},
        });
        return;
      }
      case 'ServerRunning':
        await tx.server.updateMany({
          where: { id: event.data.serverId, status: 'launching' },
          data: { status: 'running', startedAt: new Date(event.data.at), updatedAt: new Date(event.data.at) },
        });
        return;
      case 'ServerStopped':
        await tx.server.update({
          where: { id: event.data.serverId },
          data: { status: 'stopped', stoppedAt: new Date(event.data.at), stopReason: event.data.reason, networkPorts: [], updatedAt: new Date(event.data.at) },
        });
        return;
    }
  },
};
