// Small DOM helpers: elements from tag, attributes and children (text is always set as text, never as HTML),
// and the page's two live regions: status (polite updates) and alert (errors).
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | ((e: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'object' ? c : String(c));
  }
}

/** A polite announcement for screen readers (and the visible status line). */
export function announce(message: string): void {
  const status = document.getElementById('status');
  if (status) status.textContent = message;
}

/** An error in the alert region: read at once by screen readers, visible until the next one or a clear. */
export function showError(err: unknown): void {
  const alert = document.getElementById('alert');
  if (!alert) return;
  alert.textContent = err instanceof Error ? err.message : String(err);
  alert.hidden = false;
}

export function clearError(): void {
  const alert = document.getElementById('alert');
  if (alert) {
    alert.textContent = '';
    alert.hidden = true;
  }
}

/** A table with a caption and column headers (th scope=col); rows of cells, the first a row header. */
export function table(caption: string, columns: string[], rows: Child[][], attrs: Attrs = {}): HTMLTableElement {
  return h('table', attrs,
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((cells) => row(cells))),
  );
}

export function row(cells: Child[], attrs: Attrs = {}): HTMLTableRowElement {
  return h('tr', attrs, ...cells.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', {}, c))));
}

/** "3 min", "2 h": how long ago an ISO time was. */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86400)} d`;
}
