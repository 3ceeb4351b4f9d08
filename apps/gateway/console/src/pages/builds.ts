// Builds (status, version, type, size; the newest page) and the warm pool per region (settings' pool_config next to the pool
// servers: ready / claimed / launching, counted by the SDK's poolStatus as the CLI does), every 5 s.
import { poolStatus, type Server } from '@spawnpoint/client';
import { age, h, showError, table } from '../dom';
import { every, type Page } from './page';

const size = (bytes: number | null) => (bytes === null ? '' : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

export const buildsPage: Page = (main, { sp }) => {
  const builds = h('div', { id: 'builds-list' });
  const pools = h('div', { id: 'pools' });
  main.append(h('h1', {}, 'Builds and pools'), h('h2', {}, 'Builds'), builds, h('h2', {}, 'Warm pools'), pools);
  return every(5000, async () => {
    const [list, settings] = await Promise.all([sp.builds.list(), sp.projects.getSettings()]);
    // The newest page (50): the rest is a click of the CLI or API away.
    builds.replaceChildren(...(list.builds.length
      ? [table('Builds', ['Name', 'Version', 'Status', 'Type', 'Size', 'Age'], list.builds.map((b) => [b.name, b.version, b.status, b.build_type, size(b.size_bytes), age(b.created_at)]), { id: 'builds-table' }),
        ...(list.has_more ? [h('p', { id: 'builds-more' }, `The newest ${list.builds.length} of ${list.total} builds.`)] : [])]
      : [h('p', {}, 'No builds yet.')]));
    const poolServers: Server[] = [];
    for await (const s of sp.servers.listAll({ include_pool: true, include_launching: true })) if (s.is_pool_server && s.status !== 'stopped') poolServers.push(s);
    const config = settings.pool_config;
    const regions = poolStatus(settings, poolServers);
    pools.replaceChildren(
      h('p', {}, `Pool ${config?.enabled ? 'enabled' : 'disabled'}`),
      regions.length
        ? table('Pool servers per region', ['Region', 'Min ready', 'Max', 'Ready', 'Claimed', 'Launching'], regions.map((r) => [r.region, r.min_ready, r.max, r.ready, r.claimed, r.launching]), { id: 'pools-table' })
        : h('p', {}, 'No pool configured (pool_config in the settings).'),
    );
  }, showError);
};
