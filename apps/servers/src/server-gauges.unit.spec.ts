// The servers process's own scrape-time figures: the machines it runs (by kind) and the pools' targets.
import { machineGauges, poolTargetGauges } from './server-gauges';

const values = async (g: { source: () => Promise<{ labels: Record<string, string>; value: number }[]> }) => g.source();

describe('server gauges', () => {
  it('counts the machines this process runs, as process or pod', async () => {
    const running = ['a', 'b'];
    const [pods] = machineGauges({ kind: 'kubernetes', running: () => running });
    expect(pods.name).toBe('spawnpoint_game_machines');
    expect(await values(pods)).toEqual([{ labels: { kind: 'pod' }, value: 2 }]);
    running.pop();
    expect(await values(pods)).toEqual([{ labels: { kind: 'pod' }, value: 1 }]);
    expect(await values(machineGauges({ kind: 'process', running: () => [] })[0])).toEqual([{ labels: { kind: 'process' }, value: 0 }]);
  });

  it('reports each region\'s min_ready as the pools are told it', async () => {
    const [targets] = poolTargetGauges(() => new Map([['us-east', 4], ['eu-west', 1]]));
    expect(targets.name).toBe('spawnpoint_pool_min_ready');
    expect(await values(targets)).toEqual([{ labels: { region: 'us-east' }, value: 4 }, { labels: { region: 'eu-west' }, value: 1 }]);
  });
});
