import { ServerEvent } from '@spawnpoint/domain';
import { RecordedEvent } from '@spawnpoint/eventstore';
import { Projection, Tx } from '@spawnpoint/platform';
import { Prisma } from '@spawnpoint/read-models';

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
        // started_at stays from the first run while a crashed game restarts on the same machine.
        await tx.$executeRaw`UPDATE servers SET status = 'running', started_at = COALESCE(started_at, ${new Date(event.data.at)}), updated_at = ${new Date(event.data.at)}
          WHERE id = ${event.data.serverId}::uuid AND status = 'launching'`;
        return;
      case 'ServerCrashed':
        await tx.server.update({ where: { id: event.data.serverId }, data: { status: 'launching', updatedAt: new Date(event.data.at) } });
        return;
      case 'ServerRestarted': {
        const d = event.data;
        await tx.server.update({
          where: { id: d.serverId },
          data: {
            status: 'launching', networkPorts: d.networkPorts as object[], buildId: d.buildId, version: d.version,
            startedAt: null, stoppedAt: null, stopReason: null, updatedAt: new Date(d.at),
            ...(d.name !== undefined ? { name: d.name } : {}),
            ...(d.startupArgs !== undefined ? { startupArgs: d.startupArgs } : {}),
            ...(d.versionTag !== undefined ? { versionTag: d.versionTag } : {}),
            ...(d.ttl !== undefined ? { ttl: d.ttl } : {}),
            ...(d.autoRestart !== undefined ? { autoRestart: d.autoRestart } : {}),
            ...(d.customData !== undefined ? { customData: (d.customData ?? Prisma.DbNull) as object } : {}),
            ...(d.matchId !== undefined ? { matchId: d.matchId } : {}),
          },
        });
        return;
      }
      case 'ServerCustomDataUpdated':
        await tx.server.update({
          where: { id: event.data.serverId },
          data: { customData: (event.data.customData ?? Prisma.DbNull) as object, updatedAt: new Date(event.data.at) },
        });
        return;
      case 'ServerPoolClaimed': {
        const d = event.data;
        await tx.server.update({
          where: { id: d.serverId },
          data: { name: d.name, customData: (d.customData ?? Prisma.DbNull) as object, ttl: d.ttl, matchId: d.matchId, poolClaimedAt: new Date(d.at), updatedAt: new Date(d.at) },
        });
        return;
      }
      case 'ServerStopped':
        await tx.server.update({
          where: { id: event.data.serverId },
          data: { status: 'stopped', stoppedAt: new Date(event.data.at), stopReason: event.data.reason, networkPorts: [], updatedAt: new Date(event.data.at) },
        });
        return;
    }
  },
};
