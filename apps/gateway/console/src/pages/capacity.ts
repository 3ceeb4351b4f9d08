// Capacity (GET /v3/pools): per pool region what the servers service keeps ready now and why (min_ready, or
// the demand policy's reasons: forecast, floors, holds, scale to zero, a rollout), next to the servers ready,
// launching, of an older version and claimed, every 2 s.
import { h, showError, table } from '../dom';
import { every, type Page } from './page';

export const capacityPage: Page = (main, { sp }) => {
  const body = h('div', { id: 'capacity' }, h('p', {}, 'Loading…'));
  main.append(h('h1', {}, 'Capacity'), body);
  return every(2000, async () => {
    const c = await sp.servers.poolCapacity();
    body.replaceChildren(
      h('p', { id: 'capacity-state' }, c.enabled ? `Pool of ${c.build_name}, version ${c.build_version ?? 'none ready'}` : 'Pool disabled'),
      c.regions.length
        ? table('Pool capacity per region', ['Region', 'Sized by', 'Desired', 'Ready', 'Launching', 'Outdated', 'Claimed', 'Min ready', 'Max', 'Why'],
          c.regions.map((r) => [r.region, r.sized_by, r.desired, r.ready, r.launching, r.outdated, r.claimed, r.min_ready, r.max, r.why.join('; ')]), { id: 'capacity-table' })
        : h('p', {}, 'No pool region configured (pool_config in the settings).'),
    );
  }, showError);
};
