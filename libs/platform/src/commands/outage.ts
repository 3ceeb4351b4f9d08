// Whether a failure is a dependency's outage (the database unreachable, restarting, failing over, out of
// connections) rather than a fault of ours: the client gets 503 with Retry-After and tries again, never a
// 500 (issue 36). Read from the error and its causes: pg's socket errors and SQLSTATEs, Prisma's codes
// (the pg driver adapter wraps pg's error), the pool's own messages.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOENT']);
// 08: connection exception; 57P01-57P03: admin/crash shutdown, cannot connect now; 53300: too many connections.
const SQLSTATES = /^(08...|57P0[123]|53300)$/;
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const MESSAGES = [
  /Connection terminated/i,
  /connection error and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Client was closed and is not queryable/i,
  /Cannot use a pool after calling end/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /terminating connection due to administrator command/i,
  /server closed the connection unexpectedly/i,
  /Can't reach database server/i,
  /Server has closed the connection/i,
];

export function isDependencyOutage(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const { code, message, originalCode, kind } = e as { code?: unknown; message?: unknown; originalCode?: unknown; kind?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || SQLSTATES.test(code) || PRISMA_CODES.has(code))) return true;
    if (typeof originalCode === 'string' && SQLSTATES.test(originalCode)) return true;
    if (kind === 'DatabaseNotReachable' || kind === 'ConnectionClosed' || kind === 'TooManyConnections' || kind === 'SocketTimeout') return true;
    if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
  }
  return false;
}
