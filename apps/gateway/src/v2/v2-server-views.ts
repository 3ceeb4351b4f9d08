// A v3 Server in the v2 API's shapes (the hosted service's published Instance and ServerStartResponse):
// its fields only, in its order; v3 shows the rest (match_id, pool, readiness, game).
import type { NetworkPortView, ServerView, V2InstanceView, V2ServerView } from '@spawnpoint/proto';

const ports = (s: ServerView): NetworkPortView[] => s.network_ports.map((p) => ({ ...p, tls_enabled: p.tls_enabled ?? false }));

export function toV2Instance(s: ServerView): V2InstanceView {
  return {
    instance_id: s.instance_id, name: s.name, network_ports: ports(s), status: s.status, startup_args: s.startup_args,
    service_type: s.service_type, compute_size: s.compute_size, region: s.region, version_tag: s.version_tag, version: s.version,
    started_at: s.started_at, stopped_at: s.stopped_at, auto_restart: s.auto_restart, custom_data: s.custom_data, ttl: s.ttl,
  };
}

export function toV2Start(s: ServerView): V2ServerView {
  return {
    instance_id: s.instance_id, name: s.name, status: s.status, region: s.region, network_ports: ports(s),
    compute_size: s.compute_size, version_tag: s.version_tag, version: s.version, started_at: s.started_at,
  };
}
