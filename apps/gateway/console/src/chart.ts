// The log histogram as an inline SVG: one stacked bar per bin (info, warn, error), scaled to the fullest bin.
// Colours come from the stylesheet (classes), so the page's CSP needs no inline styles.
import type { LogHistogram } from '@spawnpoint/client';
import { h, svg } from './dom';

const LEVELS = ['info', 'warn', 'error'] as const;
const WIDTH = 600;
const HEIGHT = 160;

export function histogramChart(hist: LogHistogram): Element {
  const buckets = hist.buckets;
  const total = (b: LogHistogram['buckets'][number]) => b.info + b.warn + b.error;
  const max = Math.max(1, ...buckets.map(total));
  const sums = LEVELS.map((l) => buckets.reduce((n, b) => n + b[l], 0));
  const label = `Log lines per ${hist.step} s: ${LEVELS.map((l, i) => `${sums[i]} ${l}`).join(', ')}`;
  const barWidth = buckets.length ? WIDTH / buckets.length : WIDTH;
  const bars = buckets.flatMap((b, i) => {
    let y = HEIGHT;
    return LEVELS.filter((l) => b[l] > 0).map((l) => {
      const height = (b[l] / max) * (HEIGHT - 10);
      y -= height;
      return svg('rect', { class: `bar bar-${l}`, x: (i * barWidth + 1).toFixed(1), y: y.toFixed(1), width: Math.max(1, barWidth - 2).toFixed(1), height: height.toFixed(1) },
        svg('title', {}, `${b.t}: ${b[l]} ${l}`));
    });
  });
  return h('figure', { class: 'histogram' },
    svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label, 'data-bins': buckets.length }, svg('title', {}, label), ...bars),
    h('figcaption', {}, label, ' ', ...LEVELS.map((l) => h('span', { class: `legend legend-${l}` }, l))),
  );
}
