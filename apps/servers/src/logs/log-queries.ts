// The logs pages (a server's, a project's) and the log histogram, computed in PostgreSQL over log_lines
// (indexes on server_id, ts and on project_id, ts).
// Only bound parameters reach the SQL: a search term is data, never SQL or a LIKE pattern.
import { Prisma, type ReadModels } from '@spawnpoint/read-models';
import { LogHistogram, LogLevelName, LogPage, ProjectLogPage } from '@spawnpoint/proto';
import { encodeTimeCursor } from '@spawnpoint/platform';
import { HistogramQuery, histogramBins, LogsQuery, rollupMinutes } from './log-window';

/**
 * Message bytes (as JSON) one page may carry: a reply must fit in one bus message (NATS: 1 MiB) next to
 * up to 1000 lines of envelope. A page that would exceed it ends early; next_token continues after it.
 */
export const PAGE_MESSAGE_BUDGET = 512 * 1024;

export interface LogServer { instance_id: string; region: string }

interface PageRow { id: string; ts: Date; level: LogLevelName; message: string | null }
interface ProjectPageRow extends PageRow { server_id: string; server_name: string; region: string }

/** Lines of the window oldest first, at most q.limit (fewer when the page's byte budget runs out). */
export async function queryLogs(db: ReadModels, server: LogServer, q: LogsQuery, budget = PAGE_MESSAGE_BUDGET): Promise<LogPage> {
  const rows = await db.$queryRaw<PageRow[]>(pageSql(Prisma.sql`server_id = ${server.instance_id}::uuid`, q, budget));
  return toPage(rows, q, (r) => ({ timestamp: r.ts.toISOString(), message: r.message!, level: r.level, instance_id: server.instance_id, region: server.region }));
}

/**
 * The same page over every server of a project (GET /v3/projects/logs), each line with its server's
 * name and region: log_lines carries project_id (index on project_id, ts), the servers read model the rest.
 */
export async function queryProjectLogs(db: ReadModels, projectId: string, q: LogsQuery, budget = PAGE_MESSAGE_BUDGET): Promise<ProjectLogPage> {
  const rows = await db.$queryRaw<ProjectPageRow[]>`
    SELECT p.*, coalesce(s.name, '') AS server_name, coalesce(s.region, '') AS region
    FROM (${pageSql(Prisma.sql`project_id = ${projectId}`, q, budget, Prisma.sql`, p.server_id::text AS server_id`)}) p
    LEFT JOIN servers s ON s.id = p.server_id::uuid
    ORDER BY p.ts, p.id::bigint`;
  return toPage(rows, q, (r) => ({
    timestamp: r.ts.toISOString(), message: r.message!, level: r.level, instance_id: r.server_id, server_name: r.server_name, region: r.region,
  }));
}

/**
 * One page of lines matching `scope`, oldest first, one row more than the page when there is more. Only
 * bound parameters reach the SQL. Lines past the byte budget come back without their message; they only
 * tell that there is more.
 */
function pageSql(scope: Prisma.Sql, q: LogsQuery, budget: number, extra: Prisma.Sql = Prisma.empty): Prisma.Sql {
  const afterTs = q.after?.at.toISOString() ?? null;
  const afterId = q.after?.id ?? null;
  // A null parameter switches its filter off: plans are made with the values bound, so it costs nothing.
  return Prisma.sql`
    SELECT p.id::text AS id, p.ts, p.level${extra},
           CASE WHEN row_number() OVER w = 1 OR sum(octet_length(to_json(p.message)::text)) OVER w <= ${budget}::int
                THEN p.message END AS message
    FROM (
      SELECT id, ts, level, message, server_id FROM log_lines
      WHERE ${scope}
        AND ts >= ${q.window.start.toISOString()}::timestamptz AND ts < ${q.window.end.toISOString()}::timestamptz
        AND (${afterTs}::timestamptz IS NULL OR (ts, id) > (${afterTs}::timestamptz, ${afterId}::bigint))
        AND (${q.search}::text IS NULL OR strpos(lower(message), lower(${q.search}::text)) > 0)
      ORDER BY ts, id
      LIMIT ${q.limit + 1}::int
    ) p
    WINDOW w AS (ORDER BY p.ts, p.id)
    ORDER BY p.ts, p.id`;
}

/** The page's lines (up to the limit and the first line without its message) and the token after the last. */
function toPage<R extends PageRow, L>(rows: R[], q: LogsQuery, line: (r: R) => L): { logs: L[]; next_token: string | null } {
  const page: R[] = [];
  for (const row of rows) {
    if (page.length === q.limit || row.message === null) break;
    page.push(row);
  }
  const last = page[page.length - 1];
  return { logs: page.map(line), next_token: rows.length > page.length && last ? encodeTimeCursor({ at: last.ts, id: last.id }) : null };
}

type BinRow = { t: Date; info: number; warn: number; error: number };

/**
 * Counts per level in epoch-aligned bins of q.step seconds; only non-empty bins, oldest first.
 * Without a search and with a step of whole minutes, the whole minutes of the window are read from the
 * per-minute rollup (log_minutes, kept by the LogWriter) and only the partial minutes at the window's edges
 * from log_lines: the same answer as counting every line, from ~1440 rows per day. Otherwise every line
 * is counted (queryRawHistogram).
 */
export async function queryLogHistogram(db: ReadModels, serverId: string, q: HistogramQuery): Promise<LogHistogram> {
  const minutes = rollupMinutes(q);
  if (!minutes) return queryRawHistogram(db, serverId, q);
  const window = { start: q.window.start.toISOString(), end: q.window.end.toISOString() };
  const inner = { start: minutes.start.toISOString(), end: minutes.end.toISOString() };
  // The edges are at most one partial minute each, so a plain GROUP BY over their lines is cheap; the rollup
  // has at most 1440 rows per day of window. One statement, no transaction: the costs stay below JIT's threshold.
  const rows = await db.$queryRaw<BinRow[]>`
    SELECT x.t, sum(x.info)::int AS info, sum(x.warn)::int AS warn, sum(x.error)::int AS error
    FROM (
      SELECT date_bin(make_interval(secs => ${q.step}::int), m.minute, timestamptz '1970-01-01T00:00:00Z') AS t, m.info, m.warn, m.error
      FROM log_minutes m
      WHERE m.server_id = ${serverId}::uuid AND m.minute >= ${inner.start}::timestamptz AND m.minute < ${inner.end}::timestamptz
      UNION ALL
      SELECT date_bin(make_interval(secs => ${q.step}::int), l.ts, timestamptz '1970-01-01T00:00:00Z'),
             (l.level <> 'warn' AND l.level <> 'error')::int, (l.level = 'warn')::int, (l.level = 'error')::int
      FROM log_lines l
      WHERE l.server_id = ${serverId}::uuid AND l.ts >= ${window.start}::timestamptz AND l.ts < ${inner.start}::timestamptz
      UNION ALL
      SELECT date_bin(make_interval(secs => ${q.step}::int), l.ts, timestamptz '1970-01-01T00:00:00Z'),
             (l.level <> 'warn' AND l.level <> 'error')::int, (l.level = 'warn')::int, (l.level = 'error')::int
      FROM log_lines l
      WHERE l.server_id = ${serverId}::uuid AND l.ts >= ${inner.end}::timestamptz AND l.ts < ${window.end}::timestamptz
    ) x
    GROUP BY x.t
    HAVING sum(x.info) + sum(x.warn) + sum(x.error) > 0
    ORDER BY x.t`;
  return { buckets: toBuckets(rows), step: q.step, window };
}

function toBuckets(rows: BinRow[]): LogHistogram['buckets'] {
  return rows.map((r) => ({ t: r.t.toISOString(), info: r.info, warn: r.warn, error: r.error }));
}

/**
 * The histogram counted from every line of the window (a search, a step that is not whole minutes, or a
 * window without a whole minute). One index range count per bin rather than GROUP BY date_bin(...): the
 * planner cannot estimate how many groups date_bin makes, guesses one per row and sorts the whole window
 * (~1 s for a million lines, spilling to disk); a range count per bin reads the index in order, never sorts.
 */
export async function queryRawHistogram(db: ReadModels, serverId: string, q: HistogramQuery): Promise<LogHistogram> {
  const window = { start: q.window.start.toISOString(), end: q.window.end.toISOString() };
  const bins = histogramBins(q.window, q.step);
  if (!bins) return { buckets: [], step: q.step, window };
  // Levels are exactly info, warn and error (the runtime's LogLevel), so info = all - warn - error:
  // one comparison less per line on the hottest path.
  // JIT off: the planner overestimates the per-bin scans and JIT-compiles the query, ~200 ms per call
  // for a million lines (bench/README.md); SET LOCAL keeps the setting to this transaction.
  const [, rows] = await db.$transaction([db.$executeRaw`SET LOCAL jit = off`, db.$queryRaw<BinRow[]>`
    SELECT b.t, c.n - c.warn - c.error AS info, c.warn, c.error
    FROM generate_series(${bins.first.toISOString()}::timestamptz, ${bins.last.toISOString()}::timestamptz, make_interval(secs => ${q.step}::int)) AS b(t)
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS n,
             count(*) FILTER (WHERE l.level = 'warn')::int AS warn,
             count(*) FILTER (WHERE l.level = 'error')::int AS error
      FROM log_lines l
      WHERE l.server_id = ${serverId}::uuid
        AND l.ts >= greatest(b.t, ${window.start}::timestamptz)
        AND l.ts < least(b.t + make_interval(secs => ${q.step}::int), ${window.end}::timestamptz)
        AND (${q.search}::text IS NULL OR strpos(lower(l.message), lower(${q.search}::text)) > 0)
    ) c
    WHERE c.n > 0
    ORDER BY b.t`]);
  return { buckets: toBuckets(rows), step: q.step, window };
}
