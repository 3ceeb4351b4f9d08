// Hosting latencies the servers service sees: a cold start (a server created, or restarted, until its game
// has bound every port: running) and a pool claim (a start request answered with a ready pool server), with
// the claims a pool could not serve. `region` is one of the fixed regions, never a server or project id.
import { Counter, Histogram } from 'prom-client';
import { metricsEnabled, metricsRegistry } from './registry';

const coldStart = new Histogram({
  name: 'spawnpoint_server_cold_start_seconds', help: 'From a server start (or restart) request until the server is running, by region',
  labelNames: ['region'], buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120], registers: [metricsRegistry],
});
const claimDuration = new Histogram({
  name: 'spawnpoint_pool_claim_duration_seconds', help: 'From a start request until a ready pool server is claimed for it, by region',
  labelNames: ['region'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1], registers: [metricsRegistry],
});
const claims = new Counter({
  name: 'spawnpoint_pool_claims_total', help: 'Start requests a pool was configured for, by region and outcome (claimed; empty: no ready pool server, started cold)',
  labelNames: ['region', 'outcome'], registers: [metricsRegistry],
});

export function observeColdStart(region: string, seconds: number): void {
  if (metricsEnabled()) coldStart.observe({ region }, seconds);
}

/** A start request a pool was configured for: a ready server claimed, or none (`empty`). */
export function countPoolClaim(region: string, outcome: 'claimed' | 'empty'): void {
  if (metricsEnabled()) claims.inc({ region, outcome });
}

/** A claim answered: from the start request reaching the service until it holds the claimed server. */
export function observePoolClaim(region: string, seconds: number): void {
  if (metricsEnabled()) claimDuration.observe({ region }, seconds);
}
