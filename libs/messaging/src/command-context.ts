// The id of the command a request belongs to, carried on the bus as the `command-id` header so a
// re-sent command (a caller that timed out asks again) is recognised by the service and not applied
// twice. The gateway sets it around each write request; handlers see it, but their own requests do not
// pass it on (`outbound: false`): a service's follow-up requests are commands of their own.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Headers } from './bus';

export const COMMAND_ID_HEADER = 'command-id';

export interface CommandContext {
  commandId: string;
  /** Requests sent inside this context carry the id. */
  outbound: boolean;
}

const storage = new AsyncLocalStorage<CommandContext | null>();

export function runInCommand<T>(context: CommandContext | null, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentCommand(): CommandContext | null {
  return storage.getStore() ?? null;
}

/** Headers plus the current command's id when it travels outbound; explicit headers win. */
export function withCommandId(headers: Headers = {}): Headers {
  const ctx = storage.getStore();
  return ctx?.outbound ? { [COMMAND_ID_HEADER]: ctx.commandId, ...headers } : headers;
}
