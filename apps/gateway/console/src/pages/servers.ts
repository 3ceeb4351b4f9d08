// Servers: start form (name, region), the active servers (launching and running: status, region, ports, age)
// refreshed every 2 s, stop buttons.
import type { Server } from '@spawnpoint/client';
import { age, announce, clearError, h, showError, table } from '../dom';
// The domain's catalog (no imports of its own): one list of regions for the API and the form.
import { REGIONS } from '../../../../../libs/domain/src/catalog';
import { every, type Page } from './page';

export const ports = (s: Server) => s.network_ports.map((p) => `${p.name} ${p.protocol}/${p.external_port}`).join(', ');

export const serversPage: Page = (main, { sp }) => {
  const list = h('div', { id: 'servers-list' });
  const name = h('input', { id: 'start-name', name: 'name', required: true, maxlength: 128, autocomplete: 'off' });
  const region = h('select', { id: 'start-region', name: 'region' }, ...REGIONS.map((r) => h('option', { value: r }, r)));
  const form = h('form', { class: 'inline-form', 'aria-labelledby': 'start-heading' },
    h('h2', { id: 'start-heading' }, 'Start a server'),
    h('label', { for: 'start-name' }, 'Name'), name,
    h('label', { for: 'start-region' }, 'Region'), region,
    h('button', { type: 'submit' }, 'Start'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearError();
    try {
      const s = await sp.servers.start({ name: name.value, region: region.value });
      announce(`Server ${s.name} started: ${s.status}`);
      name.value = '';
      await refresh();
    } catch (err) {
      showError(err);
    }
  });
  main.append(h('h1', {}, 'Servers'), form, h('h2', {}, 'Active servers of the project'), list);

  const stop = async (s: Server) => {
    clearError();
    try {
      await sp.servers.stop(s.instance_id);
      announce(`Server ${s.name} stopping`);
      await refresh();
    } catch (err) {
      showError(err);
    }
  };
  const refresh = async () => {
    const page = await sp.servers.list({ include_launching: true, limit: 100 });
    const rows = page.servers.map((s) => [
      h('a', { href: `#/servers/${s.instance_id}` }, s.name),
      h('span', { class: `status status-${s.status}` }, s.status), s.region, ports(s), age(s.created_at),
      s.status === 'stopped' ? '' : h('button', { type: 'button', onclick: () => void stop(s), 'aria-label': `Stop ${s.name}` }, 'Stop'),
    ]);
    list.replaceChildren(page.servers.length
      ? table(`Launching and running servers, newest first: ${page.servers.length} of ${page.total} (refreshed every 2 seconds)`, ['Name', 'Status', 'Region', 'Ports', 'Age', 'Actions'], rows, { id: 'servers-table' })
      : h('p', {}, 'No launching or running servers.'));
  };
  return every(2000, refresh, showError);
};
