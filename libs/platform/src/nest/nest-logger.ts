// Nest's own logs through the platform's logger, as JSON lines like every other. Nest's `log` level is
// its start-up chatter (modules initialised, every route mapped): debug here, so a start stays quiet at
// info; its warnings and errors keep their level.
import type { LoggerService } from '@nestjs/common';
import { logger } from '@spawnpoint/logging';

const log = logger('nest');

type Level = 'trace' | 'debug' | 'warn' | 'error' | 'fatal';

// Nest calls error(message, stack?, context?): a stack is told apart from a context by its frames.
const STACK = /\n\s+at /;

function write(level: Level, message: unknown, params: unknown[]): void {
  if (!log.isLevelEnabled(level)) return;
  const fields: Record<string, unknown> = {};
  const rest = [...params];
  if (typeof rest[rest.length - 1] === 'string' && !STACK.test(rest[rest.length - 1] as string)) fields.context = rest.pop();
  const stack = rest.find((p): p is string => typeof p === 'string' && STACK.test(p));
  if (stack) fields.stack = stack;
  if (message instanceof Error) {
    fields.err = message;
    log[level](fields, message.message);
  } else if (typeof message === 'string') {
    log[level](fields, message);
  } else {
    fields.detail = message;
    log[level](fields, typeof fields.context === 'string' ? fields.context : 'nest');
  }
}

export class NestLogger implements LoggerService {
  log(message: unknown, ...params: unknown[]): void {
    write('debug', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    write('trace', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    write('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    write('error', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    write('fatal', message, params);
  }
}
