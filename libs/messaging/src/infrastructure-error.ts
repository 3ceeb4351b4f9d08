// Tells a failure of the database (down, restarting, connection lost, a conflict that a retry resolves)
// from a failure of the work itself (an event a projection or a consumer cannot handle). The first is
// retried until it passes and never blamed on an event; only the second may park an event. The pg driver,
// Prisma's pg adapter and Prisma itself wrap errors differently, so the whole chain (cause, meta, driver
// error) is read. A bus that is unavailable, or a service answering 503/504, is infrastructure too.
import { BusUnavailable, RemoteError } from './bus';

/** SQLSTATE classes and codes that say nothing about the statement: the server or the connection failed. */
const TRANSIENT_SQLSTATE_CLASSES = ['08', '53', '57', '58'];
const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '55006', // object_in_use
  '25006', // read_only_sql_transaction (a replica during failover)
]);
/** 57014 (query_canceled: statement timeout) is in class 57 but says the statement itself ran too long. */
const NOT_TRANSIENT_SQLSTATES = new Set(['57014']);

const SOCKET_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'EHOSTDOWN',
]);

/** Prisma error codes: cannot reach / timed out / connection closed / pool timeout / write conflict or deadlock. */
const TRANSIENT_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2034']);

/** Prisma pg adapter kinds (`DriverAdapterError.cause.kind`). */
const TRANSIENT_ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections', 'TransactionWriteConflict', 'TlsConnectionError']);

const TRANSIENT_MESSAGES = [
  /connection terminated/i,
  /connection (?:is )?closed/i,
  /server closed the connection/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /terminating connection/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /can't reach database server/i,
  /cannot use a pool after calling end/i,
  /client was closed and is not queryable/i,
  /\bECONNREFUSED\b|\bECONNRESET\b|\bEPIPE\b|\bETIMEDOUT\b/,
];

/** Errors nested in `err`: itself, its cause chain, and the driver error Prisma keeps in `meta` or `cause`. */
function* chain(err: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 8 || err === null || typeof err !== 'object') return;
  const e = err as Record<string, unknown>;
  yield e;
  yield* chain(e.cause, depth + 1);
  const meta = e.meta as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object') yield* chain(meta.driverAdapterError, depth + 1);
  if (Array.isArray(e.errors)) for (const inner of e.errors) yield* chain(inner, depth + 1);
}

function transientCode(code: string): boolean {
  if (NOT_TRANSIENT_SQLSTATES.has(code)) return false;
  if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_PRISMA_CODES.has(code) || SOCKET_CODES.has(code)) return true;
  return /^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2));
}

/** True when `err` is the database's or the network's failure rather than the work's: retry, don't blame the event. */
export function isInfrastructureError(err: unknown): boolean {
  for (const e of chain(err)) {
    if (e instanceof BusUnavailable) return true;
    if (e instanceof RemoteError && (e.body.status === 503 || e.body.status === 504)) return true;
    for (const key of ['code', 'originalCode', 'errorCode'] as const) {
      const code = e[key];
      if (typeof code === 'string' && transientCode(code)) return true;
    }
    if (typeof e.kind === 'string' && TRANSIENT_ADAPTER_KINDS.has(e.kind)) return true;
    for (const key of ['message', 'originalMessage'] as const) {
      const message = e[key];
      if (typeof message === 'string' && TRANSIENT_MESSAGES.some((re) => re.test(message))) return true;
    }
  }
  return false;
}
