import type { ServerState } from '@spawnpoint/domain';
import type { Server } from '@spawnpoint/read-models';
import { NetworkPortView, ServerView } from '@spawnpoint/proto';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toServerView(s: Server): ServerView {
  return {
    instance_id: s.id,
    name: s.name,
    status: s.status as ServerView['status'],
    network_ports: s.status === 'stopped' ? [] : (s.networkPorts as unknown as NetworkPortView[]),
    startup_args: s.startupArgs,
    service_type: s.serviceType as ServerView['service_type'],
    compute_size: s.computeSize,
    region: s.region,
    version_tag: s.versionTag,
    version: s.version,
    started_at: iso(s.startedAt),
    stopped_at: iso(s.stoppedAt),
    auto_restart: s.autoRestart,
    custom_data: (s.customData as Record<string, unknown> | null) ?? null,
    ttl: s.ttl,
    is_pool_server: s.isPoolServer,
    pool_claimed_at: iso(s.poolClaimedAt),
    match_id: s.matchId,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

/** The same view from the aggregate's state (what the read model holds once it has applied it). */
export function stateView(s: ServerState): ServerView {
  if (s.status === 'none') throw new Error('no server');
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
  };
}
