// The platform's log as the e2e suites read it: each process writes one JSON object a line on stdout
// (docs/operations.md "Logs"). Parsing is strict, so a line that is not JSON fails the suite that reads it.

export interface LogLine {
  level: string;
  time: string;
  service: string;
  version: string;
  msg: string;
  [field: string]: unknown;
}

export const LOG_LEVEL_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** Every line of one process's stdout as a log line; throws, naming the line, at one that is not a JSON object. */
export function parseLogLines(stdout: string): LogLine[] {
  return stdout.split('\n').filter((line) => line.trim() !== '').map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`not a JSON log line: ${line.slice(0, 300)}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`not a JSON object: ${line.slice(0, 300)}`);
    return parsed as LogLine;
  });
}

/** The lines of a process's stdout so far that are complete JSON, skipping any other (for waiting on a line, not for checking the format). */
export function jsonLinesSoFar(stdout: string): LogLine[] {
  return stdout.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}
