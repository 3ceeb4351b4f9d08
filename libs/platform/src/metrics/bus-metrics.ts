// Bus requests handled by this process, per subject and outcome. Subjects are `<service>.<verb>` constants
// (proto/src/subjects.ts), but a label must never carry an id: anything else becomes `other`.
import { CounterSeries, HistogramSeries, HotCounter, HotHistogram } from './hot-path-metrics';
import { metricsRegistry } from './registry';

const requests = new HotCounter(
  'spawnpoint_bus_requests_total', 'Bus requests handled, by subject and outcome (ok, rejected: a 4xx answer, error: 5xx, expired: dropped unrun past its deadline)', ['subject', 'outcome'], metricsRegistry,
);
const duration = new HotHistogram(
  'spawnpoint_bus_request_duration_seconds', 'Time to handle a bus request, by subject', ['subject'],
  [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], metricsRegistry,
);

const SUBJECT = /^[a-z][a-zA-Z]{0,40}\.[a-z][a-zA-Z]{0,40}$/;

/** The subject as a label: a `<service>.<verb>` constant as is, anything else (ids, reply inboxes) `other`. */
export function subjectLabel(subject: string): string {
  return SUBJECT.test(subject) ? subject : 'other';
}

/** `expired`: dropped unrun, its deadline passed before it began (ADR-0020). */
export type BusOutcome = 'ok' | 'rejected' | 'error' | 'expired';

// Series held per label set (hot-path-metrics.ts).
const counters = new Map<string, CounterSeries>();
const timers = new Map<string, HistogramSeries>();

export function observeBusRequest(subject: string, outcome: BusOutcome, seconds: number): void {
  let timer = timers.get(subject);
  if (!timer) timers.set(subject, (timer = duration.labels(subject)));
  timer.observe(seconds);
  const key = `${subject} ${outcome}`;
  let counter = counters.get(key);
  if (!counter) counters.set(key, (counter = requests.labels(subject, outcome)));
  counter.inc();
}
