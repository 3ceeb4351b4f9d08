// pools status counts pool servers per region next to the configured sizes: unclaimed running = ready,
// claimed = claimed (whatever its status), the rest launching; stopped and non-pool servers do not count.
import type { Server } from '@spawnpoint/client';
import { poolStatus } from './pools';

const server = (region: string, status: Server['status'], claimed: boolean, pool = true) =>
  ({ region, status, is_pool_server: pool, pool_claimed_at: claimed ? '2026-11-26T10:00:00Z' : null }) as Server;

describe('poolStatus', () => {
  it('counts ready, claimed and launching per region, with configured regions first-class', () => {
    const settings = { pool_config: { enabled: true, regions: { 'us-east': { min_ready: 2, max: 5 }, 'eu-west': { min_ready: 1, max: 2 } } } };
    const servers = [
      server('us-east', 'running', false), server('us-east', 'running', false), server('us-east', 'running', true),
      server('us-east', 'launching', false), server('us-east', 'stopped', false), server('us-east', 'running', false, false),
      server('sea', 'running', true),
    ];
    expect(poolStatus(settings, servers)).toEqual([
      { region: 'eu-west', min_ready: 1, max: 2, ready: 0, claimed: 0, launching: 0 },
      { region: 'sea', min_ready: 0, max: 0, ready: 0, claimed: 1, launching: 0 },
      { region: 'us-east', min_ready: 2, max: 5, ready: 2, claimed: 1, launching: 1 },
    ]);
  });

  it('is empty without a pool', () => {
    expect(poolStatus({ pool_config: null }, [])).toEqual([]);
  });
});
