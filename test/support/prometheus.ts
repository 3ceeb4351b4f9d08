// A small parser of the Prometheus text format (0.0.4), enough for the metrics tests: samples with their
// labels, and the TYPE of each family.
export interface Sample { name: string; labels: Record<string, string>; value: number }
export interface Exposition { samples: Sample[]; types: Record<string, string> }

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/gy;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(raw: string): number {
  // Case-insensitive, as Prometheus reads them (prom-client writes `Nan`).
  if (/^\+?inf$/i.test(raw)) return Infinity;
  if (/^-inf$/i.test(raw)) return -Infinity;
  if (/^nan$/i.test(raw)) return NaN;
  const n = Number(raw);
  if (Number.isNaN(n)) throw new Error(`not a sample value: ${raw}`);
  return n;
}

export function parsePrometheus(text: string): Exposition {
  const samples: Sample[] = [];
  const types: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types[type[1]] = type[2];
      else if (!/^# HELP \S+ /.test(line)) throw new Error(`bad comment line: ${line}`);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const labels: Record<string, string> = {};
    if (m[2]) {
      LABEL.lastIndex = 0;
      let consumed = 0;
      for (let l = LABEL.exec(m[2]); l; l = LABEL.exec(m[2])) {
        labels[l[1]] = unescape(l[2]);
        consumed = LABEL.lastIndex;
      }
      if (consumed !== m[2].length) throw new Error(`bad labels: ${line}`);
    }
    samples.push({ name: m[1], labels, value: parseValue(m[3]) });
  }
  return { samples, types };
}

/** Sum of the samples named `name` whose labels include `match`. */
export function sum(e: Exposition, name: string, match: Record<string, string> = {}): number {
  return e.samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

/** Label values that look like an id: a UUID, a long hex run, or a pf_ key. */
export function idLikeLabels(e: Exposition): string[] {
  const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|pf_/i;
  return e.samples.flatMap((s) => Object.entries(s.labels).filter(([, v]) => ID.test(v)).map(([k, v]) => `${s.name}{${k}="${v}"}`));
}

export async function scrape(port: number): Promise<Exposition> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics on ${port}: ${res.status}`);
  if (!/text\/plain; version=0\.0\.4/.test(res.headers.get('content-type') ?? '')) throw new Error(`/metrics content-type ${res.headers.get('content-type')}`);
  return parsePrometheus(await res.text());
}
