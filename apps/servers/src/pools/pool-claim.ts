// Whether a start request can be served by a pool server: only when a pool server is exactly what a
// cold start would have made (same build, region, size, and nothing that is fixed at machine start).
import { PoolConfig } from '@spawnpoint/domain';
import { StartServerBody } from '@spawnpoint/proto';

export function poolFor(pool: PoolConfig | null, body: StartServerBody): PoolConfig | null {
  if (!pool?.enabled || body.use_pool === false) return null;
  if (!(body.region in pool.regions)) return null;
  if ((body.version_tag ?? 'default') !== pool.build_name) return null;
  if ((body.compute_size ?? 'small') !== pool.compute_size) return null;
  if (pool.build_version !== null && body.version != null && body.version !== pool.build_version) return null;
  // Fixed when the machine starts: a pool server cannot take these on at claim time.
  if (body.port_configs || body.startup_args || body.auto_restart) return null;
  if (body.environment_variables && Object.keys(body.environment_variables).length > 0) return null;
  if ((body.service_type ?? 'match_based') !== 'match_based') return null;
  return pool;
}

export const poolKey = (projectId: string, region: string, version: number | null, computeSize: string) => `${projectId}|${region}|${version}|${computeSize}`;
