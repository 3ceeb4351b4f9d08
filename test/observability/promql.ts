// PromQL as Prometheus reads it, for the dashboard and alert tests: Grafana's variables replaced by what
// Grafana substitutes, parsed with Prometheus's own Lezer grammar (@prometheus-io/lezer-promql, the one its
// web UI uses); an expression is valid when its tree has no error node.
import { parser } from '@prometheus-io/lezer-promql';

/** Grafana's built-in and dashboard variables, as Grafana would interpolate them. */
export function interpolate(expr: string): string {
  return expr
    .replace(/\$__(rate_interval|interval|range)\b/g, '5m')
    .replace(/\$\{(\w+)(:\w+)?\}|\$(\w+)/g, '.+');
}

/** Where the parse failed (character offsets); empty: valid PromQL. */
export function parseErrors(expr: string): number[] {
  const errors: number[] = [];
  parser.parse(expr).iterate({ enter: (node) => { if (node.type.isError) errors.push(node.from); } });
  return errors;
}

/** The metric names an expression selects (`name{...}` and `name[...]`). */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.add(expr.slice(node.from, node.to));
    },
  });
  return [...names];
}
