// Time to match: how long each lobby waited in the queue (queued → its match found), by mode. Observed once
// per lobby wait across replicas: by the replica whose projection recorded the wait (match_waits).
import { Histogram } from 'prom-client';
import { metricsEnabled, metricsRegistry } from './registry';

const timeToMatch = new Histogram({
  name: 'spawnpoint_matchmaking_time_to_match_seconds', help: 'From a lobby entering the queue until its match was found, by mode',
  labelNames: ['mode'], buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600], registers: [metricsRegistry],
});

export function observeTimeToMatch(mode: string, seconds: number): void {
  if (metricsEnabled()) timeToMatch.observe({ mode }, seconds);
}
