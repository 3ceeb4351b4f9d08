import { poolStatus, type Server } from '@spawnpoint/client';
import type { Command } from '../command';
import { print, table } from '../output';

// Shared with the web console (@spawnpoint/client); kept importable from here for the CLI's unit test.
export { poolStatus };

export const poolsStatus: Command = {
  words: ['pools', 'status'],
  args: [],
  summary: 'Warm pool per region: configured min_ready / max, and ready, claimed, launching servers',
  options: {},
  async run(ctx) {
    const sp = ctx.client();
    const settings = await sp.projects.getSettings();
    const servers: Server[] = [];
    for await (const s of sp.servers.listAll({ include_pool: true, include_launching: true })) if (s.is_pool_server && s.status !== 'stopped') servers.push(s);
    const status = { enabled: settings.pool_config?.enabled === true, regions: poolStatus(settings, servers) };
    print(ctx.output, status, () => `pool ${status.enabled ? 'enabled' : 'disabled'}\n${table(status.regions, ['region', 'min_ready', 'max', 'ready', 'claimed', 'launching'])}`);
  },
};
