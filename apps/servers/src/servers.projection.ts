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
        // Plain SQL for the events of every start and claim: the hot path of the servers read model.
        const d = event.data;
        const at = new Date(d.at);
        await tx.$executeRaw`INSERT INTO servers (id, project_id, name, status, region, compute_size, version_tag, version, build_id, network_ports,
            startup_args, service_type, auto_restart, custom_data, ttl, is_pool_server, match_id, created_at, updated_at)
          VALUES (${d.serverId}::uuid, ${d.projectId}, ${d.name}, 'launching', ${d.region}, ${d.computeSize}, ${d.versionTag}, ${d.version},
            ${d.buildId}::uuid, ${JSON.stringify(d.networkPorts)}::jsonb, ${d.startupArgs}, ${d.serviceType}, ${d.autoRestart},
            ${d.customData === null ? null : JSON.stringify(d.customData)}::jsonb, ${d.ttl}, ${d.isPoolServer}, ${d.matchId}, ${at}, ${at})
          ON CONFLICT (id) DO NOTHING`;
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
        const at = new Date(d.at);
        await tx.$executeRaw`UPDATE servers SET name = ${d.name}, custom_data = ${d.customData === null ? null : JSON.stringify(d.customData)}::jsonb,
          ttl = ${d.ttl}, match_id = ${d.matchId}, pool_claimed_at = ${at}, updated_at = ${at} WHERE id = ${d.serverId}::uuid`;
        return;
      }
      case 'ServerStopped': {
        const at = new Date(event.data.at);
        await tx.$executeRaw`UPDATE servers SET status = 'stopped', stopped_at = ${at}, stop_reason = ${event.data.reason}, network_ports = '[]'::jsonb,
          updated_at = ${at} WHERE id = ${event.data.serverId}::uuid`;
        return;
      }
    }
  },
};
