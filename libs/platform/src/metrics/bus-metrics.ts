// Bus requests handled by this process, per subject and outcome. Subjects are `<service>.<verb>` constants
// (proto/src/subjects.ts), but a label must never carry an id: anything else becomes `other`.
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from './registry';

const requests = new Counter({
  name: 'spawnpoint_bus_requests_total', help: 'Bus requests handled, by subject and outcome (ok, rejected: a 4xx answer, error: 5xx)',
  labelNames: ['subject', 'outcome'], registers: [metricsRegistry],
});
const duration = new Histogram({
  name: 'spawnpoint_bus_request_duration_seconds', help: 'Time to handle a bus request, by subject',
  labelNames: ['subject'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [metricsRegistry],
});

const SUBJECT = /^[a-z][a-zA-Z]{0,40}\.[a-z][a-zA-Z]{0,40}$/;

/** The subject as a label: a `<service>.<verb>` constant as is, anything else (ids, reply inboxes) `other`. */
export function subjectLabel(subject: string): string {
  return SUBJECT.test(subject) ? subject : 'other';
}

export type BusOutcome = 'ok' | 'rejected' | 'error';

export function observeBusRequest(subject: string, outcome: BusOutcome, seconds: number): void {
  requests.inc({ subject, outcome });
  duration.observe({ subject }, seconds);
}
