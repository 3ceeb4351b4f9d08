// The platform's logs: JSON lines from pino, one process-wide root per process (its service name and
// version on every line) and a logger per part of the code (`component`). Fields: time (ISO 8601), level
// (its name), service, version, msg, trace_id / span_id inside an active span, then the line's own.
import pino, { DestinationStream, Logger } from 'pino';
import { prettyDestination } from './pretty';
import { stdoutWriter } from './stdout-writer';
import { LogFormat, LogLevel, logFormatFrom, logLevelFrom } from './settings';
import { traceFields } from './trace-fields';

const VERSION: string = (() => {
  try {
    return (require('../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
})();

// pino's isoTime formats a Date per line; at a gateway's request rate several lines share a millisecond.
let lastMs = -1;
let lastTime = '';
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

export interface LoggingOptions {
  /** The app: gateway, projects, …, standalone. */
  service: string;
  version?: string;
  level?: LogLevel;
  format?: LogFormat;
  /** Where lines are written; default stdout. */
  destination?: DestinationStream;
}

export function createLogger(o: LoggingOptions): Logger {
  const options: pino.LoggerOptions = {
    level: o.level ?? 'info',
    base: { service: o.service, version: o.version ?? VERSION },
    timestamp: isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: traceFields,
  };
  const destination = o.destination ?? (o.format === 'pretty' ? prettyDestination() : undefined);
  return pino(options, destination ?? stdoutWriter());
}

let root: Logger | null = null;

/** The process's root logger; until a process configures one, a default at LOG_LEVEL (or info). */
export function rootLogger(): Logger {
  if (!root) {
    let level: LogLevel = 'info';
    try {
      level = logLevelFrom(process.env);
    } catch {
      // Reported by configureLogging, which every entry point calls.
    }
    root = createLogger({ service: 'spawnpoint', level, format: 'json' });
  }
  return root;
}

/**
 * Sets the process's root logger from LOG_LEVEL and LOG_FORMAT (options win). Every logger of the code
 * follows it, those created before too. A bad setting still leaves a working logger behind (at info, JSON),
 * then throws, so the entry point can report it as a start-up failure.
 */
export function configureLogging(options: LoggingOptions, env: NodeJS.ProcessEnv = process.env): Logger {
  const problems: string[] = [];
  const read = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (err) {
      problems.push((err as Error).message);
      return fallback;
    }
  };
  const level = options.level ?? read(() => logLevelFrom(env), 'info');
  const format = options.format ?? read(() => logFormatFrom(env), 'json');
  root = createLogger({ ...options, level, format });
  if (problems.length > 0) throw new Error(problems.join('; '));
  return root;
}

/** Puts a root logger in place (tests); returns the one it replaced. */
export function replaceRootLogger(next: Logger | null): Logger | null {
  const previous = root;
  root = next;
  return previous;
}

interface LogCall {
  (msg: string): void;
  (fields: Record<string, unknown>, msg: string): void;
}

/** What the code logs with: pino's calls (`log.error({ err, project_id }, 'what failed')`), on whatever root is current. */
export interface Log {
  trace: LogCall;
  debug: LogCall;
  info: LogCall;
  warn: LogCall;
  error: LogCall;
  fatal: LogCall;
  isLevelEnabled(level: LogLevel): boolean;
  /** The same logger with more fields on every line (e.g. `{ project_id }`). */
  child(fields: Record<string, unknown>): Log;
  /**
   * A hot path's line (the gateway's access log, one per request): `members` are the line's own fields as
   * JSON text (`"status":200,"route":"/api/v3/servers"`), written as pino writes a line (level, time, the
   * root's and this logger's fields, then these, then msg) without pino's per-call work. No trace fields
   * are added: the caller gives its own.
   */
  jsonLine(level: Exclude<LogLevel, 'silent'>, members: string, msg: string): void;
}

type AnyCall = (...args: unknown[]) => void;

class BoundLog implements Log {
  private cached: { root: Logger; logger: Logger } | null = null;

  constructor(private readonly fields: Record<string, unknown>) {}

  // Modules make their logger when they load, before the entry point configures the root: the child is
  // made on first use and again when the root changes.
  private get current(): Logger {
    const r = rootLogger();
    if (this.cached?.root !== r) this.cached = { root: r, logger: r.child(this.fields) };
    return this.cached.logger;
  }

  readonly trace: LogCall = (...args: unknown[]) => (this.current.trace as AnyCall)(...args);
  readonly debug: LogCall = (...args: unknown[]) => (this.current.debug as AnyCall)(...args);
  readonly info: LogCall = (...args: unknown[]) => (this.current.info as AnyCall)(...args);
  readonly warn: LogCall = (...args: unknown[]) => (this.current.warn as AnyCall)(...args);
  readonly error: LogCall = (...args: unknown[]) => (this.current.error as AnyCall)(...args);
  readonly fatal: LogCall = (...args: unknown[]) => (this.current.fatal as AnyCall)(...args);

  isLevelEnabled(level: LogLevel): boolean {
    return this.current.isLevelEnabled(level);
  }

  child(fields: Record<string, unknown>): Log {
    return new BoundLog({ ...this.fields, ...fields });
  }

  jsonLine(level: Exclude<LogLevel, 'silent'>, members: string, msg: string): void {
    const current = this.current;
    if (!current.isLevelEnabled(level)) return;
    const internals = current as unknown as Record<symbol, unknown>;
    const stream = internals[pino.symbols.streamSym] as { write(line: string): void; lastLevel?: number };
    if ((stream as Record<symbol, unknown>)[pino.symbols.needsMetadataGsym]) stream.lastLevel = current.levels.values[level];
    stream.write(`{"level":"${level}"${isoTime()}${internals[pino.symbols.chindingsSym] as string},${members},"msg":${JSON.stringify(msg)}}\n`);
  }
}

/** The logger of one part of the code: its lines carry `component` (bus, projections, servers, http, …). */
export function logger(component: string): Log {
  return new BoundLog({ component });
}
