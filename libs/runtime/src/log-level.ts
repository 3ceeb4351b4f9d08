import type { LogLevel, LogStream } from './runtime';

// A level word only counts near the start of a line, where loggers put it; further in it is
// more likely prose ("retrying after error"), so the stream decides instead.
const LEVEL_WINDOW = 40;
// The window is searched with one word's slack so a word starting inside it is seen whole.
const LEVEL_WORD = /(?<![a-z0-9])(error|err|fatal|critical|warning|warn|info|debug|trace)(?![a-z0-9])/i;

const LEVEL_OF: Record<string, LogLevel> = {
  error: 'error', err: 'error', fatal: 'error', critical: 'error',
  warning: 'warn', warn: 'warn',
  info: 'info', debug: 'info', trace: 'info',
};

/** Level of a game's log line: the first level word in its first 40 characters, else stderr → error, stdout → info. */
export function classifyLogLevel(line: string, stream: LogStream): LogLevel {
  const match = LEVEL_WORD.exec(line.slice(0, LEVEL_WINDOW + 'critical'.length + 1));
  if (match && match.index < LEVEL_WINDOW) return LEVEL_OF[match[1].toLowerCase()];
  return stream === 'stderr' ? 'error' : 'info';
}
