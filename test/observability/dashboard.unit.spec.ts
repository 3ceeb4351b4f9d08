// The Grafana dashboard (issue 15): the chart's copy (helm/spawnpoint/dashboards/spawnpoint.json, the one the
// ConfigMap ships) and deploy/grafana/spawnpoint.json are the same file; it is a classic dashboard model with
// a Prometheus data source variable, the five rows, unique panel ids and a grid within 24 columns; every
// query is valid PromQL and names only metrics the platform exposes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { metricCatalog } from './metric-catalog';
import { interpolate, metricNames, parseErrors } from './promql';

const ROOT = path.resolve(__dirname, '../..');
const CHART_COPY = path.join(ROOT, 'helm/spawnpoint/dashboards/spawnpoint.json');
const DEPLOY_COPY = path.join(ROOT, 'deploy/grafana/spawnpoint.json');

interface Target { datasource: { type: string; uid: string }; expr: string; refId: string; legendFormat?: string }
interface Panel { id: number; type: string; title: string; gridPos: { x: number; y: number; w: number; h: number }; datasource?: { type: string; uid: string }; targets?: Target[]; panels?: Panel[] }

const dashboard = JSON.parse(readFileSync(CHART_COPY, 'utf8'));
/** Every panel, rows' nested ones included. */
const panels: Panel[] = dashboard.panels.flatMap((p: Panel) => [p, ...(p.panels ?? [])]);
const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: interpolate(t.expr) })));

describe('the Grafana dashboard', () => {
  it('is one file: the chart ships the same bytes as deploy/grafana', () => {
    expect(readFileSync(DEPLOY_COPY, 'utf8')).toBe(readFileSync(CHART_COPY, 'utf8'));
  });

  it('is a classic dashboard model at the current schema version, with a Prometheus data source variable and a job filter', () => {
    expect(dashboard).toMatchObject({ title: 'Spawnpoint', uid: expect.stringMatching(/^[a-zA-Z0-9_-]{1,40}$/), editable: true, id: null });
    expect(dashboard.schemaVersion).toBe(42);
    const variables = dashboard.templating.list as Array<{ name: string; type: string; query: unknown; datasource?: { uid: string } }>;
    expect(variables.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    const job = variables.find((v) => v.name === 'job')!;
    expect(job).toMatchObject({ type: 'query', datasource: { type: 'prometheus', uid: '${datasource}' }, includeAll: true, multi: true });
    expect(metricNames((job.query as { query: string }).query.replace(/^label_values\(([^,]+),.*$/, '$1'))).toEqual(['spawnpoint_build_info']);
  });

  it('has the rows an SRE reads top-down, each panel under one, with unique ids', () => {
    expect(dashboard.panels.filter((p: Panel) => p.type === 'row').map((p: Panel) => p.title))
      .toEqual(['Platform health', 'Hosting', 'Lobbies and event streams', 'Matchmaking', 'Internals']);
    expect(dashboard.panels[0].type).toBe('row');
    const ids = panels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const titles = panels.filter((p) => p.type !== 'row').map((p) => p.title);
    expect(new Set(titles).size).toBe(titles.length);
    for (const wanted of ['Targets up', 'Gateway 5xx error ratio', 'Gateway p99 latency per route', 'Event-loop delay p99', 'Memory', 'Servers by status',
      'Pool servers per region', 'Cold start (start → running)', 'Pool claim latency', 'Lobbies by status', 'Open lobby event streams', 'Queue depth',
      'Time to match', 'Bus p99 latency per subject', 'Bus errors per subject', 'Event store append latency', 'Event store appends',
      'Projection lag (seconds)', 'Projection lag (events)', 'Relay and consumer lag']) expect(titles).toContain(wanted);
  });

  it('lays every panel out inside the 24-column grid, none overlapping another', () => {
    const cells = new Set<string>();
    for (const p of panels) {
      const { x, y, w, h } = p.gridPos;
      expect({ title: p.title, fits: [x, y, w, h].every(Number.isInteger) && x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 24 }).toEqual({ title: p.title, fits: true });
      for (let i = x; i < x + w; i++) for (let j = y; j < y + h; j++) {
        expect({ title: p.title, free: !cells.has(`${i},${j}`) }).toEqual({ title: p.title, free: true });
        cells.add(`${i},${j}`);
      }
    }
  });

  it('queries only through the data source variable, each panel with targets of their own refIds', () => {
    for (const p of panels.filter((panel) => panel.type !== 'row')) {
      expect({ panel: p.title, datasource: p.datasource }).toEqual({ panel: p.title, datasource: { type: 'prometheus', uid: '${datasource}' } });
      expect(p.targets!.length).toBeGreaterThan(0);
      expect(new Set(p.targets!.map((t) => t.refId)).size).toBe(p.targets!.length);
      for (const t of p.targets!) expect({ panel: p.title, datasource: t.datasource, expr: typeof t.expr }).toEqual({ panel: p.title, datasource: p.datasource, expr: 'string' });
    }
  });

  it('has only valid PromQL (Prometheus\'s grammar), the checker refusing what is not', () => {
    expect(queries.length).toBeGreaterThan(30);
    for (const q of queries) expect({ ...q, errors: parseErrors(q.expr) }).toEqual({ ...q, errors: [] });
    expect(parseErrors('sum(rate(spawnpoint_http_requests_total[5m])')).not.toEqual([]);
    expect(parseErrors(interpolate('rate(x{job=~"$job"}[$__rate_interval])'))).toEqual([]);
  });

  it('names only metrics the platform exposes', async () => {
    const known = await metricCatalog();
    expect(known).toContain('spawnpoint_http_request_duration_seconds_bucket');
    expect(known).toContain('nodejs_eventloop_lag_p99_seconds');
    const used = new Set(queries.flatMap((q) => metricNames(q.expr)));
    expect(used.size).toBeGreaterThan(20);
    expect([...used].filter((name) => !known.has(name))).toEqual([]);
    // A renamed metric would be caught:
    expect(metricNames('rate(spawnpoint_http_requestz_total[5m])').filter((name) => !known.has(name))).toEqual(['spawnpoint_http_requestz_total']);
  });
});
