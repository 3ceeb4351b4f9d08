// The Server view: one mapper over one shape. Both sources are brought to that shape first: the
// aggregate's state (a pool claim answers from it before the read model has it) and the read-model row
// (every other read), so the two can never map a field differently.
import type { ServerState } from '@spawnpoint/domain';
import type { Server } from '@spawnpoint/read-models';
import { NetworkPortView, ServerView } from '@spawnpoint/proto';

/** A server as the view needs it: the aggregate's fields, times as ISO strings. */
export type ServerShape = Omit<Exclude<ServerState, { status: 'none' }>, 'stoppedAt' | 'stopReason' | 'exitCode' | 'restarts' | 'buildId' | 'environmentVariables' | 'projectId' | 'tokenHash'> & {
  stoppedAt: string | null;
};

export function serverView(s: ServerShape): ServerView {
  const stopped = s.status === 'stopped';
  return {
    instance_id: s.serverId,
    name: s.name,
    status: s.status,
    network_ports: stopped ? [] : s.networkPorts,
    startup_args: s.startupArgs,
    service_type: s.serviceType,
    compute_size: s.computeSize,
    region: s.region,
    version_tag: s.versionTag,
    version: s.version,
    started_at: s.startedAt,
    stopped_at: stopped ? s.stoppedAt : null,
    auto_restart: s.autoRestart,
    custom_data: s.customData,
    ttl: s.ttl,
    is_pool_server: s.isPoolServer,
    pool_claimed_at: s.poolClaimedAt,
    match_id: s.matchId,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    readiness: s.readiness ?? 'ports',
    game: s.gameStatus
      ? { players: s.gameStatus.players, health: s.gameStatus.health, message: s.gameStatus.message, reported_at: s.gameStatus.reportedAt }
      : null,
  };
}

/** The aggregate's state as a shape (throws for a server never started). */
export function stateShape(s: ServerState): ServerShape {
  if (s.status === 'none') throw new Error('no server');
  return { ...s, stoppedAt: s.status === 'stopped' ? s.stoppedAt : null } as ServerShape;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A servers read-model row as a shape. */
export function rowShape(r: Server): ServerShape {
  return {
    serverId: r.id, name: r.name, status: r.status as ServerView['status'], networkPorts: r.networkPorts as unknown as NetworkPortView[],
    startupArgs: r.startupArgs, serviceType: r.serviceType as ServerView['service_type'], computeSize: r.computeSize, region: r.region,
    versionTag: r.versionTag, version: r.version, startedAt: iso(r.startedAt), stoppedAt: iso(r.stoppedAt), autoRestart: r.autoRestart,
    customData: (r.customData as Record<string, unknown> | null) ?? null, ttl: r.ttl, isPoolServer: r.isPoolServer,
    poolClaimedAt: iso(r.poolClaimedAt), matchId: r.matchId, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
    readiness: r.readiness as ServerShape['readiness'], gameStatus: (r.gameStatus as unknown as ServerShape['gameStatus']) ?? null,
  } as ServerShape;
}
