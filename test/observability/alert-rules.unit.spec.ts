// The alerts (issue 15): one rules file, the chart's (helm/spawnpoint/rules/spawnpoint-rules.yaml, rendered
// into the PrometheusRule) and deploy/prometheus/spawnpoint-rules.yaml being the same; promtool's shape
// (groups[].rules[] with alert, expr, for, labels, annotations); valid PromQL naming only metrics the
// platform exposes; every alert a severity, a summary, a description and a runbook that exists, saying
// what it means, how to check (with the alert's own expression) and how to fix; the promtool unit tests
// beside the rules cover every alert (run them with `promtool test rules`: docs/operations.md "Alerts").
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { metricCatalog } from './metric-catalog';
import { metricNames, parseErrors } from './promql';

const ROOT = path.resolve(__dirname, '../..');
const CHART_COPY = path.join(ROOT, 'helm/spawnpoint/rules/spawnpoint-rules.yaml');
const DEPLOY_COPY = path.join(ROOT, 'deploy/prometheus/spawnpoint-rules.yaml');
const RUNBOOKS = path.join(ROOT, 'docs/runbooks');
const RUNBOOK_BASE = 'https://github.com/spawnpoint/spawnpoint/blob/main/docs/runbooks/';

interface Rule { alert: string; expr: string; for: string; labels: Record<string, string>; annotations: Record<string, string> }
const file = load(readFileSync(CHART_COPY, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> };
const rules = file.groups.flatMap((g) => g.rules);

describe('the alert rules', () => {
  it('are one file: the chart renders the same bytes as deploy/prometheus holds', () => {
    expect(readFileSync(DEPLOY_COPY, 'utf8')).toBe(readFileSync(CHART_COPY, 'utf8'));
  });

  it('have promtool\'s shape: groups of rules, each an alert with expr, for, labels and annotations', () => {
    expect(Object.keys(file)).toEqual(['groups']);
    expect(file.groups.map((g) => g.name)).toEqual(['spawnpoint']);
    for (const rule of rules) {
      expect({ alert: rule.alert, keys: Object.keys(rule).sort() }).toEqual({ alert: rule.alert, keys: ['alert', 'annotations', 'expr', 'for', 'labels'] });
      expect(rule.alert).toMatch(/^[A-Z][A-Za-z]+$/);
      expect(rule.for).toMatch(/^[0-9]+[smh]$/);
      expect(['critical', 'warning']).toContain(rule.labels.severity);
      expect(Object.keys(rule.annotations).sort()).toEqual(['description', 'runbook_url', 'summary']);
      for (const value of [...Object.values(rule.labels), ...Object.values(rule.annotations)]) expect(typeof value).toBe('string');
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('cover what issue 15 asks: errors, latency, lags, pools, matchmaking, event loop, dependencies, targets', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'ConsumerLagging', 'DatabaseDown', 'EventLoopDelayHigh', 'EventStoreDown', 'GatewayHighErrorRate', 'GatewayHighLatency', 'NatsDown',
      'PoolEmpty', 'ProjectionLagging', 'RelayLagging', 'TargetDown', 'TimeToMatchHigh',
    ]);
  });

  it('are valid PromQL naming only metrics the platform exposes', async () => {
    const known = await metricCatalog();
    for (const { alert, expr } of rules) {
      expect({ alert, errors: parseErrors(expr) }).toEqual({ alert, errors: [] });
      expect({ alert, unknown: metricNames(expr).filter((name) => !known.has(name)) }).toEqual({ alert, unknown: [] });
      expect(metricNames(expr).length).toBeGreaterThan(0);
    }
  });

  it('link each alert to its runbook, which exists, is listed in the index and says what, how to check (with the expression) and how to fix', () => {
    const index = readFileSync(path.join(RUNBOOKS, 'README.md'), 'utf8');
    for (const { alert, expr, annotations } of rules) {
      expect(annotations.runbook_url).toBe(`${RUNBOOK_BASE}${alert}.md`);
      const page = path.join(RUNBOOKS, `${alert}.md`);
      expect({ alert, exists: existsSync(page) }).toEqual({ alert, exists: true });
      const text = readFileSync(page, 'utf8');
      expect(text.startsWith(`# ${alert}\n`)).toBe(true);
      for (const heading of ['## What it means', '## How to check', '## How to fix']) expect({ alert, heading, has: text.includes(heading) }).toEqual({ alert, heading, has: true });
      expect({ alert, quotesItsExpression: text.includes(expr.trim()) }).toEqual({ alert, quotesItsExpression: true });
      expect(index).toContain(`[${alert}](${alert}.md)`);
    }
  });

  it('have a promtool unit test case for every alert', () => {
    const tests = load(readFileSync(path.join(ROOT, 'deploy/prometheus/spawnpoint-rules.test.yaml'), 'utf8')) as {
      rule_files: string[]; tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
    };
    expect(tests.rule_files).toEqual(['spawnpoint-rules.yaml']);
    const firing = new Set(tests.tests.flatMap((t) => t.alert_rule_test.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname)));
    expect([...firing].sort()).toEqual(rules.map((r) => r.alert).sort());
  });
});
