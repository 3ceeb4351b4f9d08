// The logging settings from the environment (docs/operations.md "Logs"). Like every other setting, a
// value that is not one of the accepted ones is refused at start rather than guessed at.

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFormat = 'json' | 'pretty';

/** LOG_LEVEL: one of LOG_LEVELS (any case); unset or empty: info. */
export function logLevelFrom(env: NodeJS.ProcessEnv): LogLevel {
  const value = env.LOG_LEVEL?.trim().toLowerCase();
  if (!value) return 'info';
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
}

/**
 * LOG_FORMAT: `json` (one JSON object a line) or `pretty` (a readable line for a terminal). Unset: pretty
 * when stdout is a terminal (`npm start`), JSON everywhere else (pods, compose, pipes, files).
 */
export function logFormatFrom(env: NodeJS.ProcessEnv, stdoutIsTerminal = process.stdout.isTTY === true): LogFormat {
  const value = env.LOG_FORMAT?.trim().toLowerCase();
  if (!value) return stdoutIsTerminal ? 'pretty' : 'json';
  if (value === 'json' || value === 'pretty') return value;
  throw new Error(`LOG_FORMAT must be json or pretty (got "${env.LOG_FORMAT}")`);
}

const ON = ['true', '1', 'on', 'yes'];
const OFF = ['false', '0', 'off', 'no'];

/** A switch from the environment: true/false (also 1/0, on/off, yes/no); unset or empty: the default. */
export function switchFrom(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const value = env[name]?.trim().toLowerCase();
  if (!value) return fallback;
  if (ON.includes(value)) return true;
  if (OFF.includes(value)) return false;
  throw new Error(`${name} must be true or false (got "${env[name]}")`);
}
