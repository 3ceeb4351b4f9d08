import { PoolConfig } from '@spawnpoint/domain';
import { poolFor } from './pool-claim';

const pool: PoolConfig = { enabled: true, regions: { 'us-east': { min_ready: 2, max: 4 } }, build_name: 'default', build_version: null, compute_size: 'small' };

describe('poolFor', () => {
  it('serves a plain start of the pool build in a pool region', () => {
    expect(poolFor(pool, { name: 'm', region: 'us-east' })).toBe(pool);
    expect(poolFor(pool, { name: 'm', region: 'us-east', version_tag: 'default', compute_size: 'small', ttl: 300, custom_data: { a: 1 }, match_id: 'x' })).toBe(pool);
  });

  it('does not when the request wants something a running machine cannot take on', () => {
    for (const extra of [
      { region: 'eu-west' }, { version_tag: 'other' }, { compute_size: 'medium' }, { use_pool: false }, { startup_args: '-x' },
      { auto_restart: true }, { environment_variables: { A: '1' } }, { service_type: 'persistent_world' as const },
      { port_configs: [{ name: 'game', internal_port: 1, protocol: 'udp' as const }] },
    ]) {
      expect(poolFor(pool, { name: 'm', region: 'us-east', ...extra })).toBeNull();
    }
    expect(poolFor({ ...pool, enabled: false }, { name: 'm', region: 'us-east' })).toBeNull();
    expect(poolFor(null, { name: 'm', region: 'us-east' })).toBeNull();
    expect(poolFor({ ...pool, build_version: 3 }, { name: 'm', region: 'us-east', version: 2 })).toBeNull();
  });
});
