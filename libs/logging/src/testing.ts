// Tests: the process's log lines captured in memory (parsed), at every level, until restore().
import { createLogger, replaceRootLogger } from './logger';

export interface LogRecord {
  level: string;
  msg: string;
  time: string;
  service: string;
  version: string;
  [field: string]: unknown;
}

export interface CapturedLogs {
  /** The raw lines, as written. */
  lines: string[];
  records(): LogRecord[];
  /** The messages of the lines at `level` (all levels when omitted). */
  messages(level?: string): string[];
  restore(): void;
}

export function captureLogs(service = 'test'): CapturedLogs {
  const lines: string[] = [];
  const previous = replaceRootLogger(createLogger({ service, level: 'trace', destination: { write: (line: string) => void lines.push(line) } }));
  const records = () => lines.map((line) => JSON.parse(line) as LogRecord);
  return {
    lines,
    records,
    messages: (level) => records().filter((r) => level === undefined || r.level === level).map((r) => r.msg),
    restore: () => void replaceRootLogger(previous),
  };
}
