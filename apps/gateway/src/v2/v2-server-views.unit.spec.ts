// A v3 Server in the v2 shapes: exactly the published fields, nothing of ours.
import type { ServerView } from '@spawnpoint/proto';
import { toV2Instance, toV2Start } from './v2-server-views';

const server: ServerView = {
  instance_id: '5b2c8f0e-3a4d-4e6f-8a9b-0c1d2e3f4a5b', name: 'match', status: 'running',
  network_ports: [{ name: 'game', internal_port: 7777, external_port: 30001, protocol: 'udp', host: '127.0.0.1', tls_enabled: false }],
  startup_args: '-batchmode', service_type: 'persistent_world', compute_size: 'small', region: 'eu-west', version_tag: 'default', version: 3,
  started_at: '2026-11-28T10:00:01.000Z', stopped_at: null, auto_restart: true, custom_data: { map: 'a' }, ttl: 600,
  is_pool_server: true, pool_claimed_at: '2026-11-28T10:00:02.000Z', match_id: 'm1', created_at: '2026-11-28T10:00:00.000Z',
  updated_at: '2026-11-28T10:00:02.000Z', readiness: 'sdk', game: null,
};

describe('v2 server views', () => {
  it('an Instance carries the published fields with their values, and none of ours', () => {
    expect(toV2Instance(server)).toEqual({
      instance_id: server.instance_id, name: 'match', network_ports: server.network_ports, status: 'running', startup_args: '-batchmode',
      service_type: 'persistent_world', compute_size: 'small', region: 'eu-west', version_tag: 'default', version: 3,
      started_at: '2026-11-28T10:00:01.000Z', stopped_at: null, auto_restart: true, custom_data: { map: 'a' }, ttl: 600,
    });
  });

  it('a start answer carries the published ServerStartResponse fields', () => {
    expect(toV2Start({ ...server, status: 'launching', started_at: null })).toEqual({
      instance_id: server.instance_id, name: 'match', status: 'launching', region: 'eu-west', network_ports: server.network_ports,
      compute_size: 'small', version_tag: 'default', version: 3, started_at: null,
    });
  });
});
