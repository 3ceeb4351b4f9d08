// The web console: sign in with a key, then hash routes (#/servers, #/servers/<id>, #/builds, #/capacity,
// #/lobbies, #/settings), each a page with its own timers and streams, stopped when the route changes.
import './style.css';
import { clearError, h, showError } from './dom';
import type { Page } from './pages/page';
import { buildsPage } from './pages/builds';
import { capacityPage } from './pages/capacity';
import { lobbiesPage } from './pages/lobbies';
import { serverDetailPage } from './pages/server-detail';
import { serversPage } from './pages/servers';
import { settingsPage } from './pages/settings';
import { forget, type Session, signIn, storedKey } from './session';

const app = document.getElementById('app')!;
const main = () => document.getElementById('main')!;
let session: Session | null = null;
let dispose: () => void = () => undefined;

const NAV: [string, string][] = [['#/servers', 'Servers'], ['#/builds', 'Builds and pools'], ['#/capacity', 'Capacity'], ['#/lobbies', 'Lobbies'], ['#/settings', 'Settings']];

function route(): { page: Page; param?: string } {
  const [, section, param] = location.hash.split('/');
  if (section === 'servers' && param) return { page: serverDetailPage, param: decodeURIComponent(param) };
  if (section === 'builds') return { page: buildsPage };
  if (section === 'capacity') return { page: capacityPage };
  if (section === 'lobbies') return { page: lobbiesPage };
  if (section === 'settings') return { page: settingsPage };
  return { page: serversPage };
}

function render(): void {
  dispose();
  clearError();
  if (!session) return;
  const { page, param } = route();
  const m = main();
  m.replaceChildren();
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (location.hash.startsWith(a.getAttribute('href')!) || (!location.hash && a.getAttribute('href') === '#/servers')) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  dispose = page(m, session, param);
  // A new page: focus its heading, so keyboard and screen-reader users start there.
  const heading = m.querySelector('h1');
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
}

function shell(s: Session): void {
  const signOut = h('button', { type: 'button', id: 'sign-out' }, 'Sign out');
  signOut.addEventListener('click', () => {
    dispose();
    forget();
    session = null;
    showSignIn();
  });
  app.replaceChildren(
    h('header', {}, h('p', { class: 'brand' }, 'Spawnpoint console'),
      h('nav', { 'aria-label': 'Sections' }, h('ul', {}, ...NAV.map(([href, label]) => h('li', {}, h('a', { href }, label))))),
      h('p', { class: 'who' }, `Signed in with the ${s.kind} key`), signOut),
    h('main', { id: 'main', tabindex: -1 }),
  );
  render();
}

function showSignIn(message?: string): void {
  const key = h('input', { id: 'api-key', name: 'api-key', type: 'password', required: true, autocomplete: 'off', 'aria-describedby': 'key-help' });
  const form = h('form', { id: 'sign-in' },
    h('h1', {}, 'Sign in to the Spawnpoint console'),
    h('label', { for: 'api-key' }, 'API key'), key,
    h('p', { id: 'key-help', class: 'help' }, 'The server key sees and changes everything; a client key sees what it may. Kept in this tab only.'),
    h('button', { type: 'submit' }, 'Sign in'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearError();
    try {
      session = await signIn(key.value.trim());
      if (!location.hash) history.replaceState(null, '', '#/servers');
      shell(session);
    } catch (err) {
      showError(err);
      key.focus();
    }
  });
  app.replaceChildren(h('main', { id: 'main' }, form));
  if (message) showError(message);
  key.focus();
}

window.addEventListener('hashchange', render);
const saved = storedKey();
if (saved) {
  signIn(saved).then((s) => { session = s; shell(s); }, (err) => { forget(); showSignIn(); showError(err); });
} else {
  showSignIn();
}
