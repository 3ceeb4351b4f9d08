// Gauges computed when scraped (read-model counts, projection lag): each source adds its rows; a source
// that fails or is slow is left out of that scrape rather than failing the whole /metrics answer.
import { Gauge } from 'prom-client';
import { within } from '../nest/checks';
import { metricsRegistry } from './registry';

export interface GaugeRow { labels: Record<string, string>; value: number }
export type GaugeSource = () => Promise<GaugeRow[]>;

const SOURCE_MS = 1500;

interface ScrapeGauge { sources: Set<GaugeSource> }
const gauges = new Map<string, ScrapeGauge>();

function gaugeFor(name: string, help: string, labelNames: string[]): ScrapeGauge {
  let entry = gauges.get(name);
  if (entry) return entry;
  const sources = new Set<GaugeSource>();
  entry = { sources };
  gauges.set(name, entry);
  new Gauge({
    name, help, labelNames, registers: [metricsRegistry],
    async collect() {
      this.reset();
      const results = await Promise.all([...sources].map((source) => within(SOURCE_MS, source()).catch(() => [] as GaugeRow[])));
      for (const row of results.flat()) this.set(row.labels, row.value);
    },
  });
  return entry;
}

/** Adds a source to the gauge (created on first use); returns its removal. */
export function addGaugeSource(name: string, help: string, labelNames: string[], source: GaugeSource): () => void {
  const { sources } = gaugeFor(name, help, labelNames);
  sources.add(source);
  return () => { sources.delete(source); };
}
