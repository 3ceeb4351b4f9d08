// Validation of the logs and log-histogram parameters and the histogram's bin alignment. Pure: `now`
// is given, so every rule is unit-tested. Every bad value is reported at once, in the spec's 422 shape.
import { invalid } from '@spawnpoint/domain';
import { LogHistogramRequest, ProjectLogsRequest, ServerLogsRequest } from '@spawnpoint/proto';
import { decodeTimeCursor, TimeCursor } from '@spawnpoint/platform';

/** log_lines ids: positive bigints. */
const LOG_LINE_ID = /^[1-9][0-9]{0,18}$/;
import { parseTimeParam } from './log-time';

export const STEP = { min: 5, max: 3600, default: 60 } as const;
export const LIMIT = { min: 1, max: 1000, default: 200 } as const;
export const PROJECT_LIMIT = { min: 1, max: 1000, default: 500 } as const;
export const SEARCH_MAX = 256;
const HOUR_MS = 3_600_000;
export const MAX_WINDOW_MS = 31 * 24 * HOUR_MS;
export const HISTOGRAM_DEFAULT_SPAN_MS = HOUR_MS;
export const LOGS_DEFAULT_SPAN_MS = 24 * HOUR_MS;
/** A reply must fit in one bus message (NATS: 1 MiB; a bin is ~64 bytes of JSON): wider windows get a wider step. */
export const MAX_BINS = 10_000;
/** Steps a histogram is widened to when the asked one would give more than MAX_BINS bins. */
const WIDER_STEPS = [10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
const TIME_FORMS = 'an ISO 8601 time (e.g. 2026-11-21T10:00:00Z), a time relative to now (-30s, -15m, -1h, -2d) or now';

export interface Issue { loc: ['query', string]; msg: string; type: string }
export interface TimeWindow { start: Date; end: Date }
export interface LogsQuery { window: TimeWindow; limit: number; search: string | null; after: TimeCursor | null }
export interface HistogramQuery { window: TimeWindow; step: number; search: string | null }

type Params = Partial<Record<'start_time' | 'end_time' | 'step' | 'limit' | 'search' | 'next_token', unknown>>;

/** The logs page asked for (default window: the last 24 hours), or a 422 listing every bad value. */
export function checkLogsQuery(req: Omit<ServerLogsRequest, 'projectId' | 'serverId'>, now: Date): LogsQuery {
  const issues: Issue[] = [];
  const q = pageQuery(req as Params, now, LIMIT, issues);
  fail(issues);
  return q!;
}

/** A project's logs page: start_time is required (as the hosted service requires it), 500 lines by default. */
export function checkProjectLogsQuery(req: Omit<ProjectLogsRequest, 'projectId'>, now: Date): LogsQuery {
  const p = req as Params;
  const issues: Issue[] = [];
  if (p.start_time === undefined || p.start_time === null) issues.push({ loc: ['query', 'start_time'], msg: 'Field required', type: 'missing' });
  const q = pageQuery(p, now, PROJECT_LIMIT, issues);
  fail(issues);
  return q!;
}

/** Window, limit, search and the cursor of a logs page; issues collected (null window: one was bad). */
function pageQuery(p: Params, now: Date, limits: { min: number; max: number; default: number }, issues: Issue[]): LogsQuery | null {
  const window = resolveWindow(p, now, LOGS_DEFAULT_SPAN_MS, issues);
  const limit = integer(p, 'limit', limits, issues);
  const search = searchTerm(p, issues);
  let after: TimeCursor | null = null;
  // An empty next_token is the first page.
  if (p.next_token !== undefined && p.next_token !== null && p.next_token !== '') {
    after = typeof p.next_token === 'string' ? decodeTimeCursor(p.next_token, LOG_LINE_ID) : null;
    if (!after) issues.push({ loc: ['query', 'next_token'], msg: 'invalid pagination token', type: 'value_error' });
  }
  return window ? { window, limit, search, after } : null;
}

/** The histogram asked for (default window: the hour before end_time), or a 422 listing every bad value. */
export function checkHistogramQuery(req: Omit<LogHistogramRequest, 'projectId' | 'serverId'>, now: Date): HistogramQuery {
  const p = req as Params;
  const issues: Issue[] = [];
  const window = resolveWindow(p, now, HISTOGRAM_DEFAULT_SPAN_MS, issues);
  const step = integer(p, 'step', STEP, issues);
  const search = searchTerm(p, issues);
  fail(issues);
  return { window: window!, step: widenStep(window!, step), search };
}

function fail(issues: Issue[]): void {
  if (issues.length > 0) throw invalid('Validation error', issues);
}

/** end_time (default now) and start_time (default end - span); null when either is bad. */
function resolveWindow(p: Params, now: Date, defaultSpanMs: number, issues: Issue[]): TimeWindow | null {
  const end = p.end_time === undefined ? now : time(p, 'end_time', now, issues);
  const start = p.start_time === undefined ? (end && new Date(end.getTime() - defaultSpanMs)) : time(p, 'start_time', now, issues);
  if (!start || !end) return null;
  if (start.getTime() > end.getTime()) {
    issues.push({ loc: ['query', 'start_time'], msg: 'start_time must not be after end_time', type: 'value_error' });
    return null;
  }
  if (end.getTime() - start.getTime() > MAX_WINDOW_MS) {
    issues.push({ loc: ['query', 'start_time'], msg: 'the window from start_time to end_time must be at most 31 days', type: 'value_error' });
    return null;
  }
  return { start, end };
}

function time(p: Params, field: 'start_time' | 'end_time', now: Date, issues: Issue[]): Date | null {
  const value = p[field];
  const parsed = typeof value === 'string' ? parseTimeParam(value, now) : null;
  if (!parsed) issues.push({ loc: ['query', field], msg: `must be ${TIME_FORMS}`, type: 'value_error' });
  return parsed;
}

function integer(p: Params, field: 'step' | 'limit', range: { min: number; max: number; default: number }, issues: Issue[]): number {
  const value = p[field];
  if (value === undefined || value === null) return range.default;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    issues.push({ loc: ['query', field], msg: 'must be an integer', type: 'int_type' });
  } else if (value < range.min) {
    issues.push({ loc: ['query', field], msg: `must be at least ${range.min}`, type: 'greater_than_equal' });
  } else if (value > range.max) {
    issues.push({ loc: ['query', field], msg: `must be at most ${range.max}`, type: 'less_than_equal' });
  } else {
    return value;
  }
  return range.default;
}

/** The search term, or null for none (an empty search filters nothing). */
function searchTerm(p: Params, issues: Issue[]): string | null {
  const value = p.search;
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') {
    issues.push({ loc: ['query', 'search'], msg: 'must be a string', type: 'string_type' });
  } else if (value.length > SEARCH_MAX) {
    issues.push({ loc: ['query', 'search'], msg: `must be at most ${SEARCH_MAX} characters`, type: 'string_too_long' });
  } else {
    return value;
  }
  return null;
}

/** Start of the bin holding t: bins are aligned to multiples of step since the Unix epoch. */
export function alignDown(t: Date, stepSeconds: number): Date {
  const stepMs = stepSeconds * 1000;
  return new Date(Math.floor(t.getTime() / stepMs) * stepMs);
}

/** The first and last bin a window [start, end) touches, and how many bins lie between; null for an empty window. */
export function histogramBins(window: TimeWindow, stepSeconds: number): { first: Date; last: Date; count: number } | null {
  if (window.end.getTime() <= window.start.getTime()) return null;
  const first = alignDown(window.start, stepSeconds);
  const last = alignDown(new Date(window.end.getTime() - 1), stepSeconds);
  return { first, last, count: (last.getTime() - first.getTime()) / (stepSeconds * 1000) + 1 };
}

const MINUTE_MS = 60_000;

/**
 * The whole minutes of the window, [start, end), when the per-minute rollup (log_minutes) can give the
 * histogram's exact answer: no search (the rollup has no messages), a step of whole minutes (epoch-aligned
 * bins then start on whole minutes, so every minute lies in exactly one bin), and at least one whole minute
 * inside the window. The window edges may cut into a minute: the lines of [window.start, start) and
 * [end, window.end) are counted from log_lines. null: count every line from log_lines.
 */
export function rollupMinutes(q: HistogramQuery): TimeWindow | null {
  if (q.search !== null || q.step % 60 !== 0) return null;
  const start = Math.ceil(q.window.start.getTime() / MINUTE_MS) * MINUTE_MS;
  const end = Math.floor(q.window.end.getTime() / MINUTE_MS) * MINUTE_MS;
  return start < end ? { start: new Date(start), end: new Date(end) } : null;
}

/** The asked step, or the narrowest wider step that keeps the histogram within MAX_BINS bins. */
export function widenStep(window: TimeWindow, stepSeconds: number): number {
  const fits = (s: number) => (histogramBins(window, s)?.count ?? 0) <= MAX_BINS;
  if (fits(stepSeconds)) return stepSeconds;
  return WIDER_STEPS.find((s) => s > stepSeconds && fits(s)) ?? STEP.max;
}
