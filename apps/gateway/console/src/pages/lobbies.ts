// Lobbies of one configuration, updated live over the project-wide event stream (server key): rows are
// replaced or removed as lobby_updated / lobby_deleted arrive, queue figures as queue_stats arrive. The
// stream replays nothing, so the list is read again on every `connected` (also after a reconnect).
import type { Lobby } from '@spawnpoint/client';
import { announce, clearError, h, row, showError, table } from '../dom';
import type { Page } from './page';

export const lobbiesPage: Page = (main, { sp, kind }) => {
  const config = h('input', { id: 'lobby-config', name: 'config', value: 'default', required: true, maxlength: 128 });
  const form = h('form', { class: 'inline-form' }, h('label', { for: 'lobby-config' }, 'Lobby configuration'), config, h('button', { type: 'submit' }, 'Watch'));
  const body = h('tbody', {});
  const lobbies = table('Lobbies (live)', ['Name', 'Id', 'Status', 'Region', 'Players', 'Host'], [], { id: 'lobbies-table' });
  lobbies.tBodies[0].replaceWith(body);
  const queues = h('div', { id: 'queues' }, h('p', {}, 'No queue figures yet.'));
  const state = h('p', { id: 'stream-state' }, 'Not connected');
  main.append(h('h1', {}, 'Lobbies'), form, state, lobbies, h('h2', {}, 'Matchmaking queues'), queues);
  if (kind === 'client') {
    state.textContent = 'The live lobby view needs the server key.';
    return () => undefined;
  }

  const rowOf = (l: Lobby) => row([l.name ?? '(unnamed)', l.id, l.status, l.region, `${l.currentPlayers}/${l.maxPlayers}: ${l.players.map((p) => p.id).join(', ')}`, l.host],
    { 'data-lobby': l.id });
  const upsert = (l: Lobby) => {
    const next = rowOf(l);
    const old = body.querySelector(`tr[data-lobby="${CSS.escape(l.id)}"]`);
    if (old) old.replaceWith(next);
    else body.prepend(next);
  };
  let stream: ReturnType<typeof sp.lobbies.events> | null = null;
  const watch = () => {
    stream?.close();
    clearError();
    body.replaceChildren();
    const name = config.value;
    stream = sp.lobbies.events(name);
    stream.on('connected', async () => {
      state.textContent = `Live: lobbies of ${name}`;
      try {
        // Every public lobby, oldest appended last: a row the stream already put there is newer and stays.
        for await (const l of sp.lobbies.browseAll(name, { limit: 100 })) {
          if (!body.querySelector(`tr[data-lobby="${CSS.escape(l.id)}"]`)) body.append(rowOf(l));
        }
      } catch (err) {
        showError(err);
      }
    });
    stream.on('lobby_updated', (l) => {
      upsert(l);
      announce(`Lobby ${l.name ?? l.id} ${l.status}, ${l.currentPlayers} players`);
    });
    stream.on('lobby_deleted', ({ id }) => {
      body.querySelector(`tr[data-lobby="${CSS.escape(id)}"]`)?.remove();
      announce(`Lobby ${id} deleted`);
    });
    stream.on('queue_stats', ({ queues: q }) => {
      queues.replaceChildren(q.length
        ? table('Queues', ['Mode', 'Region', 'Players searching', 'Lobbies', 'Average wait (s)'], q.map((x) => [x.mode, x.region, x.playersSearching, x.lobbiesInQueue, x.avgWaitSeconds]), { id: 'queues-table' })
        : h('p', {}, 'No lobby is queued.'));
    });
    stream.on('reconnecting', () => { state.textContent = 'Reconnecting…'; });
    stream.on('error', (err) => showError(err));
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    watch();
  });
  watch();
  return () => stream?.close();
};
