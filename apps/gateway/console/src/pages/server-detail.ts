// One server: its fields, a stop button, the log histogram (refreshed every 5 s) and the log with a live tail
// (the SDK's followLogs: polls the logs route from the last line seen until the server has stopped).
import type { Server } from '@spawnpoint/client';
import { histogramChart } from '../chart';
import { age, announce, clearError, h, showError } from '../dom';
import { every, type Page } from './page';
import { ports } from './servers';

/** Lines kept on the page: an old server's log is long, and the tail is what matters here. */
const MAX_LINES = 2000;

export const serverDetailPage: Page = (main, { sp }, id) => {
  const fields = h('dl', { id: 'server-fields' });
  const chart = h('div', { id: 'log-histogram' });
  const log = h('ol', { id: 'server-log', class: 'log', 'aria-label': 'Log lines, oldest first' });
  const heading = h('h1', {}, 'Server');
  const stopButton = h('button', { type: 'button', id: 'stop-server' }, 'Stop');
  main.append(h('p', {}, h('a', { href: '#/servers' }, 'All servers')), heading, fields, stopButton,
    h('h2', {}, 'Log histogram'), chart, h('h2', { id: 'log-heading' }, 'Log (live)'), log);
  const abort = new AbortController();

  const show = (s: Server) => {
    heading.textContent = `Server ${s.name}`;
    stopButton.hidden = s.status === 'stopped';
    const entries: [string, string][] = [
      ['Id', s.instance_id], ['Status', s.status], ['Region', s.region], ['Ports', ports(s) || 'none'], ['Build', `${s.version_tag} v${s.version ?? ''}`],
      ['Compute size', s.compute_size], ['Created', `${s.created_at} (${age(s.created_at)} ago)`], ['Started', s.started_at ?? ''], ['Stopped', s.stopped_at ?? ''],
      ['Pool server', s.is_pool_server ? 'yes' : 'no'], ['Custom data', JSON.stringify(s.custom_data)],
    ];
    fields.replaceChildren(...entries.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
  };
  stopButton.addEventListener('click', async () => {
    clearError();
    try {
      show(await sp.servers.stop(id!));
      announce('Server stopping');
    } catch (err) {
      showError(err);
    }
  });

  const stopPolling = every(5000, async () => {
    const [s, hist] = await Promise.all([sp.servers.get(id!), sp.servers.logHistogram(id!)]);
    show(s);
    chart.replaceChildren(histogramChart(hist));
  }, showError);

  void (async () => {
    try {
      for await (const line of sp.servers.followLogs(id!, { intervalMs: 1000, signal: abort.signal })) {
        log.append(h('li', { class: `log-${line.level}` }, h('time', { datetime: line.timestamp }, line.timestamp), ` ${line.level} `, line.message));
        while (log.childElementCount > MAX_LINES) log.firstElementChild!.remove();
      }
      if (!abort.signal.aborted) announce('The server has stopped: its log is complete');
    } catch (err) {
      if (!abort.signal.aborted) showError(err);
    }
  })();

  return () => {
    stopPolling();
    abort.abort();
  };
};
